"""Rates, rate disparities and equalized odds, against plain pandas / sklearn."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import confusion_matrix

import fairness_core as fc
from fairness_core._data.checks import OPTION_MESSAGE
from fairness_core._disparity.compare import REFERENCE_MESSAGE

TOL = 1e-12
RATE_COLUMNS = ["selection_rate", "true_positive_rate", "false_positive_rate", "false_negative_rate",
                "false_omission_rate", "false_discovery_rate", "error_rate"]


# --------------------------------------------------------------------------------------------
# Literal re-implementations
# --------------------------------------------------------------------------------------------


def pandas_rate(frame: pd.DataFrame, metric: str) -> float:
    """One rate on the rows of `frame` (columns y, p), written out from the definitions."""
    y, p = frame["y"], frame["p"]
    tp = int(((y == 1) & (p == 1)).sum())
    fp = int(((y == 0) & (p == 1)).sum())
    tn = int(((y == 0) & (p == 0)).sum())
    fn = int(((y == 1) & (p == 0)).sum())
    num, den = {
        "statistical_parity": (tp + fp, len(frame)),
        "selection_rate": (tp + fp, len(frame)),
        "true_positive_rate": (tp, tp + fn),
        "false_positive_rate": (fp, fp + tn),
        "false_negative_rate": (fn, fn + tp),
        "false_omission_rate": (fn, fn + tn),
        "false_discovery_rate": (fp, fp + tp),
        "error_rate": (fp + fn, len(frame)),
    }[metric]
    return num / den if den else float("nan")


def literal_distance(a: float, b: float, measure: str) -> float:
    if math.isnan(a) or math.isnan(b):
        return float("nan")
    if measure == "diff":
        return abs(a - b)
    if a == 0 and b == 0:
        return 1.0
    if a == 0 or b == 0:
        return float("inf")
    return max(a, b) / min(a, b)


def denominator(frame: pd.DataFrame, metric: str) -> int:
    """Rows in the denominator of `metric` (actual positives for TPR, actual negatives for FPR, ...)."""
    y, p = frame["y"], frame["p"]
    return int({"statistical_parity": len(frame), "true_positive_rate": (y == 1).sum(),
                "false_positive_rate": (y == 0).sum(), "false_negative_rate": (y == 1).sum(),
                "false_omission_rate": (p == 0).sum(), "false_discovery_rate": (p == 1).sum(),
                "error_rate": len(frame)}[metric])


def expected_comparisons(frame: pd.DataFrame, metric: str, reference: str, measure: str,
                         min_size: int) -> pd.DataFrame:
    """The comparison table, from the definitions (frame columns y, p, g)."""
    names = sorted(frame["g"].unique())
    sizes = frame["g"].value_counts()
    value = {g: pandas_rate(frame[frame["g"] == g], metric) for g in names}
    # Small: too few rows, or too few in the rate's denominator (on either side of the comparison).
    small = {g: bool(sizes[g] < min_size or 0 < denominator(frame[frame["g"] == g], metric) < min_size)
             for g in names}
    rows = []
    if reference == "rest":
        rows = [(g, "rest", value[g], pandas_rate(frame[frame["g"] != g], metric),
                 small[g] or 0 < denominator(frame[frame["g"] != g], metric) < min_size) for g in names]
    elif reference == "overall":
        overall = pandas_rate(frame, metric)
        rows = [(g, "overall", value[g], overall, small[g] or 0 < denominator(frame, metric) < min_size)
                for g in names]
    elif reference == "pairwise":
        rows = [(a, b, value[a], value[b], small[a] or small[b])
                for i, a in enumerate(names) for b in names[i + 1:]]
    else:
        rows = [(g, reference, value[g], value[reference], small[g] or small[reference])
                for g in names if g != reference]
    out = pd.DataFrame(rows, columns=["subgroup", "reference", "subgroup_value", "reference_value", "small"])
    out["disparity"] = [literal_distance(a, b, measure) for a, b in zip(out["subgroup_value"], out["reference_value"])]
    return out


def literal_reduce(table: pd.DataFrame, reduction: str, include_small: bool):
    """(value, n_used, n_undefined, n_small_excluded, worst) by plain Python."""
    used = table if include_small else table[~table["small"]]
    defined = [(d, s, r) for d, s, r in zip(used["disparity"], used["subgroup"], used["reference"])
               if not math.isnan(d)]
    n_small = len(table) - len(used)
    n_undefined = len(used) - len(defined)
    if not defined:
        return float("nan"), 0, n_undefined, n_small, None
    if reduction == "max":
        best = max(defined, key=lambda t: t[0])
        return best[0], len(defined), n_undefined, n_small, (best[1], best[2])
    return sum(d for d, _, _ in defined) / len(defined), len(defined), n_undefined, n_small, None


def assert_close(actual, expected, tol=TOL):
    actual = np.asarray(actual, dtype=float)
    expected = np.asarray(expected, dtype=float)
    np.testing.assert_array_equal(np.isnan(actual), np.isnan(expected))
    np.testing.assert_array_equal(np.isinf(actual), np.isinf(expected))
    finite = np.isfinite(expected)
    np.testing.assert_allclose(actual[finite], expected[finite], rtol=0, atol=tol)


# --------------------------------------------------------------------------------------------
# COMPAS at threshold 5
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def compas_rows(compas):
    """y = two_year_recid, p = decile_score >= 5 ("higher risk"), g = race."""
    return pd.DataFrame({
        "y": compas["two_year_recid"].to_numpy(),
        "p": (compas["decile_score"] >= 5).astype(int).to_numpy(),
        "g": compas["race"].to_numpy(),
    })


@pytest.fixture(scope="module")
def compas_sd(compas):
    mapping = fc.ColumnMapping(label="two_year_recid", positive_label=1, scores=("decile_score",),
                               protected=("race",))
    return fc.ScoredData.from_frame(compas, mapping)


def test_compas_scored_data_keeps_every_row(compas_sd, compas_rows):
    assert compas_sd.n_rows == len(compas_rows) == 7214
    np.testing.assert_array_equal(compas_sd.y_true, compas_rows["y"])
    np.testing.assert_array_equal(compas_sd.y_pred("decile_score", 5), compas_rows["p"])
    table = compas_sd.subgroup_table().set_index("subgroup")
    assert table.loc["Native American", "size"] == 18 and bool(table.loc["Native American", "small"])
    assert int(table["small"].sum()) == 1


def test_compas_propublica_error_rates(compas_rows):
    rates = fc.group_rates(compas_rows["y"], compas_rows["p"], compas_rows["g"]).set_index("subgroup")
    assert round(rates.loc["African-American", "false_positive_rate"], 4) == 0.4485
    assert round(rates.loc["Caucasian", "false_positive_rate"], 4) == 0.2345
    assert round(rates.loc["African-American", "false_negative_rate"], 4) == 0.2799
    assert round(rates.loc["Caucasian", "false_negative_rate"], 4) == 0.4772


@pytest.mark.parametrize("kind", ["series", "scored"])
def test_compas_group_rates_match_confusion_matrix(compas_rows, compas_sd, kind):
    y, p, g = compas_rows["y"].to_numpy(), compas_rows["p"].to_numpy(), compas_rows["g"]
    if kind == "series":
        rates = fc.group_rates(y, p, g)
        min_size = 1
    else:
        rates = fc.group_rates(compas_sd.y_true, compas_sd.y_pred("decile_score", 5), compas_sd.subgroups)
        min_size = 30
    names = sorted(g.unique())
    assert list(rates["subgroup"]) == names
    for _, row in rates.iterrows():
        mask = (g == row["subgroup"]).to_numpy()
        tn, fp, fn, tp = confusion_matrix(y[mask], p[mask], labels=[0, 1]).ravel()
        n = tn + fp + fn + tp
        assert (row["tp"], row["fp"], row["tn"], row["fn"]) == (tp, fp, tn, fn)
        assert (row["size"], row["n_positive"], row["n_negative"]) == (n, tp + fn, tn + fp)
        assert bool(row["small"]) == (n < min_size)
        expected = {
            "selection_rate": (tp + fp) / n,
            "true_positive_rate": tp / (tp + fn),
            "false_positive_rate": fp / (fp + tn),
            "false_negative_rate": fn / (fn + tp),
            "false_omission_rate": fn / (fn + tn),
            "false_discovery_rate": fp / (fp + tp),
            "error_rate": (fp + fn) / n,
        }
        for col in RATE_COLUMNS:
            assert row[col] == pytest.approx(expected[col], abs=TOL), col
        assert row["note"] == ""


@pytest.mark.parametrize("include_small", [False, True])
@pytest.mark.parametrize("kind", ["series", "scored"])
@pytest.mark.parametrize("reduction", ["max", "mean", None])
@pytest.mark.parametrize("distance_measure", ["diff", "ratio"])
@pytest.mark.parametrize("reference", ["rest", "overall", "pairwise", "Caucasian"])
@pytest.mark.parametrize("metric", ["statistical_parity", "true_positive_rate", "false_positive_rate"])
def test_compas_rate_disparity_matches_pandas(compas_rows, compas_sd, metric, reference, distance_measure,
                                              reduction, kind, include_small):
    if kind == "series":  # raw attributes: min_size 1, nothing is small
        args, min_size = (compas_rows["y"], compas_rows["p"], compas_rows["g"]), 1
    else:  # ScoredData subgroups: min_size 30, Native American (18 rows) is small
        args, min_size = (compas_sd.y_true, compas_sd.y_pred("decile_score", 5), compas_sd.subgroups), 30
    expected = expected_comparisons(compas_rows, metric, reference, distance_measure, min_size)
    result = fc.rate_disparity(*args, metric=metric, distance_measure=distance_measure, reduction=reduction,
                               reference=reference, include_small=include_small)
    table = result if reduction is None else result.table
    assert list(table["subgroup"]) == list(expected["subgroup"])
    assert list(table["reference"]) == list(expected["reference"])
    assert list(table["small"]) == list(expected["small"])
    for col in ("subgroup_value", "reference_value", "disparity"):
        assert_close(table[col], expected[col])
    if reduction is None:
        return
    value, n_used, n_undefined, n_small, worst = literal_reduce(expected, reduction, include_small)
    assert result.value == pytest.approx(value, abs=TOL)
    assert (result.n_used, result.n_undefined, result.n_small_excluded) == (n_used, n_undefined, n_small)
    if reduction == "max":
        assert result.worst == worst
    assert (result.reduction, result.distance_measure, result.reference) == (reduction, distance_measure, reference)
    if kind == "scored" and not include_small:
        assert n_small >= 1  # the small subgroup really was left out


@pytest.mark.parametrize("reduction", ["max", "mean"])
@pytest.mark.parametrize("reference", ["rest", "overall", "pairwise", "Caucasian"])
def test_compas_equalized_odds_is_the_per_row_max(compas_rows, reference, reduction):
    tpr = expected_comparisons(compas_rows, "true_positive_rate", reference, "diff", 1)
    fpr = expected_comparisons(compas_rows, "false_positive_rate", reference, "diff", 1)
    per_row = [max(a, b) for a, b in zip(tpr["disparity"], fpr["disparity"])]  # no NaN on COMPAS
    expected = max(per_row) if reduction == "max" else sum(per_row) / len(per_row)
    result = fc.equalized_odds(compas_rows["y"], compas_rows["p"], compas_rows["g"], reduction=reduction,
                               reference=reference)
    assert result.value == pytest.approx(expected, abs=TOL)
    table = fc.equalized_odds(compas_rows["y"], compas_rows["p"], compas_rows["g"], reduction=None,
                              reference=reference)
    assert_close(table["tpr_disparity"], tpr["disparity"])
    assert_close(table["fpr_disparity"], fpr["disparity"])
    assert_close(table["disparity"], per_row)


SHORTCUTS = {
    "true_positive_rate_disparity": "true_positive_rate",
    "false_positive_rate_disparity": "false_positive_rate",
    "false_negative_rate_disparity": "false_negative_rate",
    "false_omission_rate_disparity": "false_omission_rate",
    "false_discovery_rate_disparity": "false_discovery_rate",
    "error_rate_disparity": "error_rate",
}


@pytest.mark.parametrize("name", sorted(SHORTCUTS))
def test_named_shortcuts_equal_rate_disparity_and_pandas(compas_rows, name):
    metric = SHORTCUTS[name]
    shortcut = getattr(fc, name)
    assert shortcut.__name__ == name
    y, p, g = compas_rows["y"], compas_rows["p"], compas_rows["g"]
    for options in ({}, {"distance_measure": "ratio", "reduction": "max", "reference": "pairwise"},
                    {"reference": "overall", "reduction": None}):
        got = shortcut(y, p, g, **options)
        via_rate = fc.rate_disparity(y, p, g, metric=metric, **options)
        if options.get("reduction", "mean") is None:
            pd.testing.assert_frame_equal(got, via_rate)
        else:
            assert got.value == via_rate.value
            pd.testing.assert_frame_equal(got.table, via_rate.table)
    expected = expected_comparisons(compas_rows, metric, "rest", "diff", 1)
    assert shortcut(y, p, g).value == pytest.approx(expected["disparity"].mean(), abs=TOL)


def test_model_statistical_parity_needs_no_labels(compas_rows):
    p, g = compas_rows["p"], compas_rows["g"]
    expected = expected_comparisons(compas_rows, "statistical_parity", "rest", "diff", 1)
    result = fc.model_statistical_parity(None, p, g)
    assert result.value == pytest.approx(expected["disparity"].mean(), abs=TOL)
    by_keyword = fc.model_statistical_parity(y_pred=p, subgroups=g, reduction="max")
    assert by_keyword.value == pytest.approx(expected["disparity"].max(), abs=TOL)
    with_labels = fc.model_statistical_parity(compas_rows["y"], p, g)
    assert with_labels.value == result.value
    with pytest.raises(ValueError, match="needs y_pred and subgroups"):
        fc.model_statistical_parity(None, None, g)


# --------------------------------------------------------------------------------------------
# Hand cases: ratios with zeros, undefined rates, equalized odds
# --------------------------------------------------------------------------------------------


def test_ratio_with_zero_rates():
    # Selection rates: a = 0/2, b = 0/3, c = 1/2; overall 1/7.
    g = ["a", "a", "b", "b", "b", "c", "c"]
    p = [0, 0, 0, 0, 0, 1, 0]
    y = [0] * 7
    pairs = fc.rate_disparity(y, p, g, metric="statistical_parity", distance_measure="ratio",
                              reference="pairwise", reduction=None)
    assert list(zip(pairs["subgroup"], pairs["reference"])) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert list(pairs["disparity"]) == [1.0, np.inf, np.inf]  # both 0 -> 1; one 0 -> inf
    assert pairs["note"].iloc[0] == ""
    assert "infinite" in pairs["note"].iloc[1] and "infinite" in pairs["note"].iloc[2]
    overall = fc.rate_disparity(y, p, g, metric="statistical_parity", distance_measure="ratio",
                                reference="overall", reduction=None)
    assert list(overall["disparity"][:2]) == [np.inf, np.inf]
    assert overall["disparity"].iloc[2] == pytest.approx((1 / 2) / (1 / 7), abs=TOL)  # 3.5
    reduced = fc.rate_disparity(y, p, g, metric="statistical_parity", distance_measure="ratio",
                                reference="pairwise", reduction="max")
    assert reduced.value == np.inf and reduced.worst == ("a", "c")
    diff = fc.rate_disparity(y, p, g, metric="statistical_parity", distance_measure="diff",
                             reference="pairwise", reduction=None)
    assert list(diff["disparity"]) == [0.0, 0.5, 0.5]


@pytest.fixture
def undefined_tpr_case():
    # a: no positives (TPR undefined), FPR 1/3.  b: TPR 1/2, FPR 0/2.  c: TPR 2/3, FPR 1/1.
    g = ["a"] * 3 + ["b"] * 4 + ["c"] * 4
    y = [0, 0, 0] + [1, 1, 0, 0] + [1, 1, 1, 0]
    p = [1, 0, 0] + [1, 0, 0, 0] + [1, 1, 0, 1]
    return y, p, g


def test_zero_denominator_gives_nan_with_a_note(undefined_tpr_case):
    y, p, g = undefined_tpr_case
    rates = fc.group_rates(y, p, g).set_index("subgroup")
    assert np.isnan(rates.loc["a", "true_positive_rate"]) and np.isnan(rates.loc["a", "false_negative_rate"])
    assert rates.loc["a", "false_positive_rate"] == pytest.approx(1 / 3, abs=TOL)
    assert "true positive rate undefined" in rates.loc["a", "note"]
    assert "false negative rate undefined" in rates.loc["a", "note"]
    assert rates.loc["b", "note"] == "" and rates.loc["c", "note"] == ""


def test_undefined_rate_is_left_out_of_the_reduction_and_counted(undefined_tpr_case):
    y, p, g = undefined_tpr_case
    # Overall TPR = (1 + 2) / (2 + 3) = 3/5. b: |1/2 - 3/5| = 1/10; c: |2/3 - 3/5| = 1/15; a: NaN.
    table = fc.rate_disparity(y, p, g, metric="true_positive_rate", reference="overall", reduction=None)
    assert np.isnan(table["disparity"].iloc[0]) and table["note"].iloc[0] != ""
    assert_close(table["disparity"].iloc[1:], [1 / 10, 1 / 15])
    mean = fc.rate_disparity(y, p, g, metric="true_positive_rate", reference="overall", reduction="mean")
    assert mean.value == pytest.approx((1 / 10 + 1 / 15) / 2, abs=TOL)
    assert (mean.n_used, mean.n_undefined, mean.n_small_excluded) == (2, 1, 0)
    worst = fc.rate_disparity(y, p, g, metric="true_positive_rate", reference="overall", reduction="max")
    assert worst.value == pytest.approx(1 / 10, abs=TOL) and worst.worst == ("b", "overall")
    # Against the undefined group itself nothing is defined.
    vs_a = fc.true_positive_rate_disparity(y, p, g, reference="a")
    assert np.isnan(vs_a.value) and vs_a.n_undefined == 2 and vs_a.n_used == 0
    assert list(vs_a.table["subgroup"]) == ["b", "c"]  # a named reference is not compared with itself


def test_small_subgroups_are_flagged_and_left_out_unless_asked():
    rng = np.random.default_rng(3)
    g = np.array(["big"] * 40 + ["mid"] * 35 + ["tiny"] * 5)
    y = rng.integers(0, 2, len(g))
    p = rng.integers(0, 2, len(g))
    groups = fc.Subgroups.from_attributes(pd.DataFrame({"g": g}), ["g"])  # min_size=30
    frame = pd.DataFrame({"y": y, "p": p, "g": g})
    expected = expected_comparisons(frame, "error_rate", "overall", "diff", 30)
    assert list(expected["small"]) == [False, False, True]
    strict = fc.error_rate_disparity(y, p, groups, reference="overall", reduction="max")
    loose = fc.error_rate_disparity(y, p, groups, reference="overall", reduction="max", include_small=True)
    assert strict.value == pytest.approx(literal_reduce(expected, "max", False)[0], abs=TOL)
    assert loose.value == pytest.approx(literal_reduce(expected, "max", True)[0], abs=TOL)
    assert strict.n_small_excluded == 1 and loose.n_small_excluded == 0


def test_equalized_odds_reduces_the_per_comparison_max():
    # Two positives and two negatives per group.
    #   A: TPR 2/2 = 1,  FPR 0/2 = 0      B: TPR 1/2,  FPR 0      C: TPR 1/2,  FPR 1/2
    # Pairwise (A,B): tpr 1/2, fpr 0 -> 1/2; (A,C): 1/2, 1/2 -> 1/2; (B,C): 0, 1/2 -> 1/2.
    # Mean of the per-pair max = 1/2, but max(mean TPR disparity, mean FPR disparity) = max(1/3, 1/3) = 1/3.
    g = ["A"] * 4 + ["B"] * 4 + ["C"] * 4
    y = [1, 1, 0, 0] * 3
    p = [1, 1, 0, 0] + [1, 0, 0, 0] + [1, 0, 1, 0]
    table = fc.equalized_odds(y, p, g, reference="pairwise", reduction=None)
    assert_close(table["tpr_disparity"], [0.5, 0.5, 0.0])
    assert_close(table["fpr_disparity"], [0.0, 0.5, 0.5])
    assert_close(table["disparity"], [0.5, 0.5, 0.5])
    result = fc.equalized_odds(y, p, g, reference="pairwise", reduction="mean")
    assert result.value == pytest.approx(0.5, abs=TOL)
    tpr_mean = fc.true_positive_rate_disparity(y, p, g, reference="pairwise").value
    fpr_mean = fc.false_positive_rate_disparity(y, p, g, reference="pairwise").value
    assert max(tpr_mean, fpr_mean) == pytest.approx(1 / 3, abs=TOL)  # Oracle's number differs
    assert fc.equalized_odds(y, p, g, reference="pairwise", reduction="max").value == pytest.approx(0.5, abs=TOL)


def test_equalized_odds_uses_the_defined_side_when_one_is_nan():
    # a: y 1, 1 / p 1, 0 -> TPR 1/2, FPR undefined; b: y 1, 0 / p 1, 1 -> TPR 1, FPR 1.
    g = ["a", "a", "b", "b"]
    y = [1, 1, 1, 0]
    p = [1, 0, 1, 1]
    table = fc.equalized_odds(y, p, g, reference="pairwise", reduction=None)
    assert np.isnan(table["fpr_disparity"].iloc[0])
    assert table["disparity"].iloc[0] == pytest.approx(0.5, abs=TOL)
    assert table["note"].iloc[0] != ""


# --------------------------------------------------------------------------------------------
# Inputs and options
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["list", "array", "series"])
def test_input_types_give_the_same_rates(undefined_tpr_case, kind):
    y, p, g = undefined_tpr_case
    convert = {"list": list, "array": np.asarray, "series": pd.Series}[kind]
    got = fc.group_rates(convert(y), convert(p), convert(g))
    pd.testing.assert_frame_equal(got, fc.group_rates(y, p, g))
    assert list(got["tp"]) == [0, 1, 2]


def test_dataframe_of_attributes_means_intersections():
    frame = pd.DataFrame({"race": ["x", "x", "y", "y", "y"], "sex": ["F", "M", "F", "F", "M"]})
    rates = fc.group_rates([1, 0, 1, 0, 1], [1, 1, 0, 0, 1], frame)
    assert list(rates["subgroup"]) == ["race=x, sex=F", "race=x, sex=M", "race=y, sex=F", "race=y, sex=M"]
    assert list(rates["size"]) == [1, 1, 2, 1] and not rates["small"].any()


def test_bad_options_raise_with_the_message_templates(undefined_tpr_case):
    y, p, g = undefined_tpr_case
    message = OPTION_MESSAGE.format(param="metric", func="rate_disparity",
                                    allowed=["statistical_parity", "true_positive_rate", "false_positive_rate",
                                             "false_negative_rate", "false_omission_rate",
                                             "false_discovery_rate", "error_rate"], got="accuracy")
    with pytest.raises(ValueError, match=re.escape(message)):
        fc.rate_disparity(y, p, g, metric="accuracy")
    with pytest.raises(ValueError, match=re.escape(REFERENCE_MESSAGE.format(
            func="rate_disparity", got="z", names="'a', 'b', 'c'"))):
        fc.rate_disparity(y, p, g, metric="error_rate", reference="z")
    with pytest.raises(ValueError, match=r"'distance_measure' parameter of rate_disparity must be one of"):
        fc.rate_disparity(y, p, g, metric="error_rate", distance_measure="log")
    with pytest.raises(ValueError, match=r"'reduction' parameter of rate_disparity must be one of"):
        fc.rate_disparity(y, p, g, metric="error_rate", reduction="median")
    with pytest.raises(ValueError, match=r"'y_pred' parameter of group_rates must hold only 0 and 1"):
        fc.group_rates(y, [2] * len(y), g)
