"""Theil indices of the benefit b = y_pred - y_true + 1, against literal per-row numpy."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_core._disparity.compare import ALONE_NOTE
from fairness_core._data.checks import OPTION_MESSAGE
from fairness_core._metrics.theil import DISTANCE_MESSAGE, OVERLAP_MESSAGE, ZERO_MEAN_NOTE

TOL = 1e-12
TABLE_COLUMNS = ["subgroup", "reference", "size", "reference_size", "subgroup_value", "reference_value",
                 "disparity", "small", "note"]


# --------------------------------------------------------------------------------------------
# Literal re-implementations: explicit per-row benefits
# --------------------------------------------------------------------------------------------


def literal_theil(benefit) -> float:
    """T = mean((b / mu) ln(b / mu)) with 0 ln 0 = 0, written out on the rows."""
    b = np.asarray(benefit, dtype=float)
    if len(b) == 0 or b.mean() == 0:
        return float("nan")
    r = b / b.mean()
    return float(np.mean([x * math.log(x) if x > 0 else 0.0 for x in r]))


def benefit(frame: pd.DataFrame) -> np.ndarray:
    return (frame["p"] - frame["y"] + 1).to_numpy(dtype=float)


def literal_between(parts: list[np.ndarray]) -> float:
    """Replace every row's benefit by its part's mean benefit, then take the Theil index of the rows."""
    return literal_theil(np.concatenate([np.full(len(b), b.mean()) for b in parts if len(b)]))


def literal_comparisons(frame: pd.DataFrame, reference: str, min_size: int) -> pd.DataFrame:
    """One row per comparison: the two-group split's Theil index, from the rows themselves."""
    names = sorted(frame["g"].unique())
    rows_of = {g: frame[frame["g"] == g] for g in names}
    small = {g: len(rows_of[g]) < min_size for g in names}
    out = []
    for g in names:
        if reference == "pairwise":
            continue
        if reference == g:
            continue
        own = benefit(rows_of[g])
        if reference == "rest":
            other, label, sm = benefit(frame[frame["g"] != g]), "rest", small[g]
        elif reference == "overall":
            other, label, sm = benefit(frame), "overall", small[g]  # the whole population as group two
        else:
            other, label, sm = benefit(rows_of[reference]), reference, small[g] or small[reference]
        out.append((g, label, len(own), len(other), own.mean(), other.mean(), literal_between([own, other]), sm))
    if reference == "pairwise":
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                own, other = benefit(rows_of[a]), benefit(rows_of[b])
                out.append((a, b, len(own), len(other), own.mean(), other.mean(), literal_between([own, other]),
                            small[a] or small[b]))
    return pd.DataFrame(out, columns=["subgroup", "reference", "size", "reference_size", "subgroup_value",
                                      "reference_value", "disparity", "small"])


def literal_reduce(table: pd.DataFrame, reduction: str, include_small: bool):
    used = table if include_small else table[~table["small"]]
    defined = [(d, s, r) for d, s, r in zip(used["disparity"], used["subgroup"], used["reference"])
               if not math.isnan(d)]
    if reduction == "max":
        best = max(defined, key=lambda t: t[0])
        return best[0], (best[1], best[2]), len(defined), len(table) - len(used)
    return sum(d for d, _, _ in defined) / len(defined), None, len(defined), len(table) - len(used)


# --------------------------------------------------------------------------------------------
# Hand cases
# --------------------------------------------------------------------------------------------


def test_individual_theil_hand_case():
    # FN, TN, FP, TP: benefits 0, 1, 2, 1; mu = 1; T = (2 ln 2) / 4.
    assert fc.individual_theil_index([1, 0, 0, 1], [0, 0, 1, 1]) == pytest.approx(math.log(2) / 2, abs=TOL)
    # One FP among four: mu = 5/4, T = (3 (4/5) ln(4/5) + (8/5) ln(8/5)) / 4.
    expected = (3 * 0.8 * math.log(0.8) + 1.6 * math.log(1.6)) / 4
    assert fc.individual_theil_index([0, 0, 1, 1], [1, 0, 1, 1]) == pytest.approx(expected, abs=TOL)


def test_two_group_theil_hand_case():
    # a: TN, FP (mean 3/2); b: TP, TP (mean 1); mu = 5/4.
    y, p, g = [0, 0, 1, 1], [0, 1, 1, 1], ["a", "a", "b", "b"]
    expected = 0.5 * (6 / 5) * math.log(6 / 5) + 0.5 * (4 / 5) * math.log(4 / 5)
    table = fc.theil_index(y, p, g, reduction=None)
    assert list(table.columns) == TABLE_COLUMNS
    assert list(table["subgroup_value"]) == [1.5, 1.0] and list(table["reference_value"]) == [1.0, 1.5]
    np.testing.assert_allclose(table["disparity"], [expected, expected], rtol=0, atol=TOL)
    # With two subgroups, rest, pairwise and the named reference are all the same split.
    for reference in ("pairwise", "b"):
        other = fc.theil_index(y, p, g, reduction=None, reference=reference)
        assert len(other) == 1 and other["disparity"].iloc[0] == pytest.approx(expected, abs=TOL)
    assert fc.between_group_theil_index(y, p, g) == pytest.approx(expected, abs=TOL)
    # overall: a (2 rows, mean 3/2) against all 4 rows (mean 5/4); pooled mean (3 + 5) / 6 = 4/3.
    mu = 4 / 3
    overall = (2 / 6) * (1.5 / mu) * math.log(1.5 / mu) + (4 / 6) * (1.25 / mu) * math.log(1.25 / mu)
    table = fc.theil_index(y, p, g, reduction=None, reference="overall")
    assert table["disparity"].iloc[0] == pytest.approx(overall, abs=TOL)
    assert list(table["reference_size"]) == [4, 4]


def test_equal_mean_benefits_give_zero_between_but_not_individual():
    # a: TN, TP (1, 1); b: FP, FN (2, 0): equal means, unequal individuals.
    y, p, g = [0, 1, 0, 1], [0, 1, 1, 0], ["a", "a", "b", "b"]
    assert fc.between_group_theil_index(y, p, g) == 0.0
    assert fc.theil_index(y, p, g, reduction="max").value == 0.0
    assert fc.individual_theil_index(y, p) == pytest.approx(literal_theil([1, 1, 2, 0]), abs=TOL)


@pytest.mark.parametrize("reference", ["rest", "overall", "pairwise", "b"])
@pytest.mark.parametrize("reduction", ["max", "mean"])
def test_perfect_predictions_give_zero(reference, reduction):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    g = rng.choice(["a", "b", "c"], 200)
    assert fc.theil_index(y, y, g, reduction=reduction, reference=reference).value == 0.0
    assert fc.individual_theil_index(y, y) == 0.0
    assert fc.between_group_theil_index(y, y, g) == 0.0


def test_all_false_negatives_are_undefined_with_a_note():
    y, p, g = [1, 1, 1, 1], [0, 0, 0, 0], ["a", "a", "b", "b"]
    assert math.isnan(fc.individual_theil_index(y, p))
    assert math.isnan(fc.between_group_theil_index(y, p, g))
    table = fc.theil_index(y, p, g, reduction=None)
    assert table["disparity"].isna().all()
    assert all(ZERO_MEAN_NOTE in note for note in table["note"])
    result = fc.theil_index(y, p, g)
    assert math.isnan(result.value) and result.n_undefined == 2 and result.n_used == 0


def test_one_subgroup_has_no_rest():
    table = fc.theil_index([0, 1], [1, 1], ["a", "a"], reduction=None)
    assert math.isnan(table["disparity"].iloc[0])
    assert table["note"].iloc[0] == ALONE_NOTE   # every row is in "a": there is no rest to compare it with
    assert math.isnan(fc.individual_theil_index([], []))


def test_errors():
    y, p, g = [0, 1], [1, 1], ["a", "b"]
    for bad in ("diff", "ratio"):
        with pytest.raises(ValueError, match=re.escape(DISTANCE_MESSAGE.format(got=bad))):
            fc.theil_index(y, p, g, distance_measure=bad)
    with pytest.raises(ValueError, match=re.escape(
            OPTION_MESSAGE.format(param="reduction", func="theil_index", allowed=["max", "mean", None], got="min"))):
        fc.theil_index(y, p, g, reduction="min")
    with pytest.raises(ValueError, match="'reference' parameter of theil_index"):
        fc.theil_index(y, p, g, reference="nobody")
    with pytest.raises(ValueError, match="'y_pred' parameter of individual_theil_index must hold only 0 and 1"):
        fc.individual_theil_index(y, [2, 1])


def test_between_group_refuses_overlapping_subgroups():
    frame = pd.DataFrame({"x": [1, 0, 1, 0], "z": [1, 1, 0, 0]})
    groups = fc.Subgroups.from_indicators(frame, ["x", "z"])
    y, p = [0, 1, 1, 0], [1, 1, 0, 0]
    with pytest.raises(ValueError, match=re.escape(OVERLAP_MESSAGE.format(func="between_group_theil_index"))):
        fc.between_group_theil_index(y, p, groups)
    assert "Tip:" in OVERLAP_MESSAGE
    # theil_index itself compares each subgroup with its background, which overlap allows.
    table = fc.theil_index(y, p, groups, reduction=None)
    b = np.array([2.0, 1.0, 0.0, 1.0])
    for j, member in enumerate([frame["x"] == 1, frame["z"] == 1]):
        m = member.to_numpy()
        assert table["disparity"].iloc[j] == pytest.approx(literal_between([b[m], b[~m]]), abs=TOL)
    # Intersections and a single attribute (intersect=False) are disjoint.
    single = fc.Subgroups.from_attributes(frame, ["x"], intersect=False, min_size=1)
    assert fc.between_group_theil_index(y, p, single) == pytest.approx(literal_between([b[[0, 2]], b[[1, 3]]]), abs=TOL)


def test_confusion_counts_methods_and_old_constructor():
    y, p, g = [0, 0, 1, 1, 1], [0, 1, 1, 1, 0], ["a", "a", "b", "b", "c"]
    counts = fc.confusion_counts(y, p, g)
    assert counts.disjoint is True
    assert counts.individual_theil_index() == fc.individual_theil_index(y, p)
    assert counts.between_group_theil_index() == fc.between_group_theil_index(y, p, g)
    pd.testing.assert_frame_equal(counts.theil_index(reduction=None, reference="pairwise"),
                                  fc.theil_index(y, p, g, reduction=None, reference="pairwise"))
    # The positional constructor still works; without `disjoint` the between-group index is refused.
    plain = fc.ConfusionCounts(counts.names, counts.member, counts.background, counts.overall, counts.min_size)
    assert plain.disjoint is False
    assert plain.theil_index(reduction="max").value == counts.theil_index(reduction="max").value
    with pytest.raises(ValueError, match="disjoint subgroups"):
        plain.between_group_theil_index()


# --------------------------------------------------------------------------------------------
# COMPAS
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def compas_rows(compas):
    return pd.DataFrame({
        "y": compas["two_year_recid"].to_numpy(),
        "p": (compas["decile_score"] >= 5).astype(int).to_numpy(),
        "g": compas["race"].to_numpy(),
    })


def test_compas_individual_and_between_group(compas_rows, compas):
    b = benefit(compas_rows)
    assert fc.individual_theil_index(compas_rows["y"], compas_rows["p"]) == pytest.approx(literal_theil(b), abs=TOL)
    parts = [b[(compas_rows["g"] == g).to_numpy()] for g in sorted(compas_rows["g"].unique())]
    between = fc.between_group_theil_index(compas_rows["y"], compas_rows["p"], compas_rows["g"])
    assert between == pytest.approx(literal_between(parts), abs=TOL)
    assert 0 < between < fc.individual_theil_index(compas_rows["y"], compas_rows["p"])
    # Decomposition: T = T_between + sum_g (n_g / n)(mu_g / mu) T_g.
    mu = b.mean()
    within = sum(len(x) / len(b) * x.mean() / mu * literal_theil(x) for x in parts)
    assert literal_theil(b) == pytest.approx(between + within, abs=TOL)
    # Intersections of race and sex.
    both = compas[["race", "sex"]]
    keys = compas["race"] + "|" + compas["sex"]
    parts = [b[(keys == k).to_numpy()] for k in sorted(keys.unique())]
    assert fc.between_group_theil_index(compas_rows["y"], compas_rows["p"], both) == pytest.approx(
        literal_between(parts), abs=TOL)


@pytest.mark.parametrize("include_small", [False, True])
@pytest.mark.parametrize("reduction", ["max", "mean", None])
@pytest.mark.parametrize("reference", ["rest", "overall", "pairwise", "Caucasian"])
def test_compas_theil_index_matches_literal(compas_rows, compas, reference, reduction, include_small):
    groups = fc.Subgroups.from_attributes(compas, ["race"], min_size=30)  # Native American (18) is small
    expected = literal_comparisons(compas_rows, reference, 30)
    result = fc.theil_index(compas_rows["y"], compas_rows["p"], groups, reduction=reduction, reference=reference,
                            include_small=include_small)
    table = result if reduction is None else result.table
    assert list(table.columns) == TABLE_COLUMNS
    for col in ("subgroup", "reference", "size", "reference_size", "small"):
        assert list(table[col]) == list(expected[col]), col
    for col in ("subgroup_value", "reference_value", "disparity"):
        np.testing.assert_allclose(table[col], expected[col], rtol=0, atol=TOL)
    assert (table["note"] == "").all()
    if reduction is None:
        return
    value, worst, n_used, n_small = literal_reduce(expected, reduction, include_small)
    assert result.value == pytest.approx(value, abs=TOL)
    assert (result.n_used, result.n_small_excluded, result.n_undefined) == (n_used, n_small, 0)
    assert result.worst == worst
    assert (result.reduction, result.reference, result.distance_measure) == (reduction, reference, None)
    assert n_small == (0 if include_small else (1 if reference in ("rest", "overall", "Caucasian") else 5))
