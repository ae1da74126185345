"""A weight column of a table: ColumnMapping(weight=), ScoredData's exclusions
and refusals, the guessed mapping, the review and the command line's --weight, each against an independent
weighted computation."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

import fairness_core as fc
from fairness_core._data.mapping_guess import guess_mapping
from tests.support import ROOT


def _frame(n: int = 3000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    group = rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2])
    y = (rng.random(n) < np.where(group == "c", 0.5, 0.3)).astype(int)
    score = np.clip(rng.normal(0.3 + 0.3 * y, 0.2), 0, 1).round(3)
    weight = np.where(group == "c", 4.0, 1.0) * np.where(y == 1, 0.5, 1.0) * rng.lognormal(0, 0.3, n)
    return pd.DataFrame({"y": y, "score": score, "group": group, "fnlwgt": weight})


MAPPING = fc.ColumnMapping(label="y", positive_label=1, scores=("score",), protected=("group",), weight="fnlwgt")


def test_missing_and_zero_weights_are_excluded_and_counted():
    frame = _frame(200)
    frame.loc[[3, 7], "fnlwgt"] = np.nan
    frame.loc[[5, 9, 11], "fnlwgt"] = 0.0
    scored = fc.ScoredData.from_frame(frame, MAPPING)
    assert scored.n_rows == 195 and len(scored.weights) == 195 and (scored.weights > 0).all()
    assert dict(zip(scored.exclusions["reason"], scored.exclusions["rows"])) == {
        "missing weight in 'fnlwgt'": 2, "weight 0 in 'fnlwgt'": 3}


@pytest.mark.parametrize("values, message", [
    (["x"] * 200, r"The weight column 'fnlwgt' must hold numbers \(it has dtype (object|str)\)"),
    ([1.0] * 199 + [-2.0], r"'fnlwgt' has 1 negative weights \(first at row 199\).*finite and >= 0"),
    ([np.inf, 1.0] * 100, r"'fnlwgt' has 100 infinite weights \(first at row 0\)"),
])
def test_bad_weight_columns_are_refused_with_a_message(values, message):
    frame = _frame(200).assign(fnlwgt=values)
    with pytest.raises(ValueError, match=message):
        fc.ScoredData.from_frame(frame, MAPPING)


def test_a_weight_column_in_another_role_is_refused():
    mapping = fc.ColumnMapping(label="y", positive_label=1, scores=("fnlwgt",), protected=("group",), weight="fnlwgt")
    with pytest.raises(ValueError, match="'fnlwgt' is used both as a score and as the weight"):
        fc.ScoredData.from_frame(_frame(100), mapping)


def test_the_subgroup_table_and_base_rate_are_weighted():
    frame = _frame()
    scored = fc.ScoredData.from_frame(frame, MAPPING)
    table = scored.subgroup_table().set_index("subgroup")
    by = frame.groupby("group")
    w, wy = by["fnlwgt"].sum(), (frame["fnlwgt"] * frame["y"]).groupby(frame["group"]).sum()
    kish = w ** 2 / (frame["fnlwgt"] ** 2).groupby(frame["group"]).sum()
    np.testing.assert_allclose(table.loc[w.index, "weight"], w, rtol=1e-12)
    np.testing.assert_allclose(table.loc[w.index, "n_positive"], wy, rtol=1e-12)
    np.testing.assert_allclose(table.loc[w.index, "size"], kish, rtol=1e-12)
    np.testing.assert_allclose(table.loc[w.index, "share"], w / frame["fnlwgt"].sum(), rtol=1e-12)
    assert list(table.loc[w.index, "rows"]) == list(by.size())
    assert scored.base_rate == pytest.approx((frame["fnlwgt"] * frame["y"]).sum() / frame["fnlwgt"].sum(), rel=1e-12)
    assert scored.effective_rows == pytest.approx(frame["fnlwgt"].sum() ** 2 / (frame["fnlwgt"] ** 2).sum())
    low, high = scored.base_rate_interval(0.95)
    assert low < scored.base_rate < high


def test_the_mapping_guess_proposes_a_weight_column_by_its_name():
    frame = _frame(100)
    assert guess_mapping(frame).weight == "fnlwgt"
    assert guess_mapping(frame).mapping.weight is None   # proposed, never applied: weights change every number
    assert guess_mapping(frame.rename(columns={"fnlwgt": "PWGTP"})).weight == "PWGTP"
    assert guess_mapping(frame.rename(columns={"fnlwgt": "person_weight"})).weight == "person_weight"
    assert guess_mapping(frame.rename(columns={"fnlwgt": "income"})).weight is None
    assert guess_mapping(frame.assign(fnlwgt=-frame["fnlwgt"])).weight is None   # negative: not weights
    # values that look like weights: whole counts (survey weights) or a mean near 1; not a body weight in kg
    assert guess_mapping(frame.assign(fnlwgt=np.round(frame["fnlwgt"] * 50_000))).weight == "fnlwgt"
    body = frame.rename(columns={"fnlwgt": "weight"}).assign(weight=np.linspace(48.3, 120.7, len(frame)))
    assert guess_mapping(body).weight is None
    assert guess_mapping(frame.assign(fnlwgt=0.0)).weight is None   # all 0: no weight at all


def test_weights_whose_squares_leave_a_float_s_range_are_refused():
    frame = _frame(200)
    for value, word in ((1e308, "large"), (1e200, "large"), (1e-320, "small"), (1e-200, "small")):
        with pytest.raises(ValueError, match=f"has weights as {word} as .* Tip: rescale the column"):
            fc.ScoredData.from_frame(frame.assign(fnlwgt=value), MAPPING)
        with pytest.raises(ValueError, match=f"confusion_counts: sample_weight has weights as {word} as"):
            fc.confusion_counts(frame["y"], frame["y"], frame["group"], sample_weight=np.full(len(frame), value))
    scaled = fc.ScoredData.from_frame(frame.assign(fnlwgt=frame["fnlwgt"] * 1e140), MAPPING)   # within range
    plain = fc.ScoredData.from_frame(frame, MAPPING)
    assert scaled.base_rate == pytest.approx(plain.base_rate, rel=1e-12)
    assert scaled.effective_rows == pytest.approx(plain.effective_rows, rel=1e-9)


def test_the_review_is_weighted_and_says_so():
    frame = _frame()
    review = fc.build_review(frame, fc.ReviewConfig(mapping=MAPPING, thresholds=(("score", 0.5),)))
    model = review.models[0]
    w, y = frame["fnlwgt"], frame["y"]
    rates = model.rate_table.set_index("subgroup")
    for g, rows in frame.groupby("group"):
        sel = (rows["fnlwgt"] * (rows["score"] >= 0.5)).sum() / rows["fnlwgt"].sum()
        assert rates.loc[g, "selection_rate"] == pytest.approx(sel, rel=1e-12)
    assert model.bias_auc.overall_auc == pytest.approx(roc_auc_score(y, frame["score"], sample_weight=w), rel=1e-12)
    assert review.base_rate[0] == pytest.approx((w * y).sum() / w.sum(), rel=1e-12)
    assert review.source["weight"] == "fnlwgt"
    assert review.source["effective_rows"] == pytest.approx(w.sum() ** 2 / (w ** 2).sum())
    assert model.findings and all(f.startswith("Weighted: ") for f in model.findings)
    assert all(v.sentence.startswith("Weighted: ") for v in model.verdicts)
    unweighted = fc.build_review(frame, fc.ReviewConfig(mapping=fc.ColumnMapping(
        label="y", positive_label=1, scores=("score",), protected=("group",)), thresholds=(("score", 0.5),)))
    assert unweighted.models[0].rate_table.set_index("subgroup").loc["c", "selection_rate"] != pytest.approx(
        rates.loc["c", "selection_rate"], abs=1e-3)
    assert not any(f.startswith("Weighted") for f in unweighted.models[0].findings)
    # the configuration keeps the weight column through its JSON (the link and the report carry it)
    assert fc.ReviewConfig.from_json(review.config.to_json()).mapping.weight == "fnlwgt"
    page = fc.render_report(review)
    assert "fnlwgt: every count is a sum of weights" in page and "Weighted: " in page


def test_the_command_line_takes_a_weight_column(tmp_path):
    frame = _frame(2000)
    path = tmp_path / "weighted.csv"
    frame.to_csv(path, index=False)
    done = subprocess.run([sys.executable, "-m", "fairness_core", "metrics", str(path), "--label", "y", "--score",
                           "score", "--protected", "group", "--threshold", "0.5", "--weight", "fnlwgt",
                           "--no-intervals"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode in (0, 1), done.stderr
    data = json.loads(done.stdout)
    rows = data["tables"]["score.rates"]
    at, group_at = rows["columns"].index("selection_rate"), rows["columns"].index("subgroup")
    shown = {r[group_at]: r[at] for r in rows["rows"]}
    c = frame[frame["group"] == "c"]
    assert shown["c"] == pytest.approx((c["fnlwgt"] * (c["score"] >= 0.5)).sum() / c["fnlwgt"].sum(), rel=1e-9)


def test_weighted_threshold_counts_give_the_intervals_of_the_same_predictions():
    """A score's threshold counts at a threshold (what the review and every page use) keep the rows with their
    weights, in the input's order, so their bootstrap deals the same rows as ``confusion_counts``: the same
    intervals, at one threshold and at per-subgroup thresholds."""
    rng = np.random.default_rng(0)
    n = 3000
    group, y = pd.Series(rng.choice(list("abc"), n)), rng.integers(0, 2, n)
    s, w = rng.random(n).round(2), rng.lognormal(0, 0.5, n)
    counts = fc.threshold_counts(y, s, group, sample_weight=w)
    at = counts.at(0.5).disparity("false_positive_rate", ci=0.95)
    direct = fc.confusion_counts(y, (s >= 0.5).astype(int), group, sample_weight=w).disparity(
        "false_positive_rate", ci=0.95)
    pd.testing.assert_frame_equal(at.table, direct.table, rtol=1e-9)
    assert (at.ci_low, at.ci_high) == pytest.approx((direct.ci_low, direct.ci_high), abs=1e-12)
    own = {"a": 0.4, "b": 0.5, "c": 0.6}
    each = counts.at_each(own).equalized_odds(ci=0.95)
    pred = (s >= group.map(own).to_numpy()).astype(int)
    direct = fc.confusion_counts(y, pred, group, sample_weight=w).equalized_odds(ci=0.95)
    assert (each.value, each.ci_low, each.ci_high) == pytest.approx((direct.value, direct.ci_low, direct.ci_high),
                                                                    abs=1e-12)
