"""The review's class-wise bias, consistency and per-subgroup thresholds (build_review, its JSON, the HTML report,
the command line), and the threshold explorer's order, checked against computations from the rows."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_core import plotting
from fairness_core._cli import main
from tests.support import ROOT

CREDIT_FILE = ROOT / "sample_data" / "credit_decisions.csv"
CREDIT = pd.read_csv(CREDIT_FILE)
CLASSES = fc.ColumnMapping(label="repayment_status", positive_label="default", predicted_label="predicted_status",
                           protected=("sex",), all_classes=True)
BINARY = fc.ColumnMapping(label="repaid", positive_label=1, scores=("score_logistic", "score_boosting"),
                          protected=("ethnicity",))
PREDICTED = fc.ColumnMapping(label="repaid", positive_label=1, predicted_label="approved", protected=("ethnicity",))
OWN = {"Group A": 0.6, "Group C": 0.42}


def test_config_round_trip_with_the_new_options():
    config = fc.ReviewConfig(mapping=BINARY, subgroup_thresholds={"score_logistic": OWN},
                             classwise_metric="recall", classwise_reduction="absolute_difference",
                             classwise_subgroups=["Male", "Female"], consistency_features=["income", "age"],
                             consistency_neighbors=7, consistency_sample=None)
    assert config.subgroup_thresholds == (("score_logistic", (("Group A", 0.6), ("Group C", 0.42))),)
    assert config.classwise_subgroups == ("Male", "Female") and config.consistency_features == ("income", "age")
    data = config.to_dict()
    assert data["subgroup_thresholds"] == {"score_logistic": OWN}
    assert data["options"]["consistency_sample"] is None and data["options"]["consistency_neighbors"] == 7
    assert fc.ReviewConfig.from_dict(json.loads(json.dumps(data))) == config
    assert fc.ReviewConfig.from_json(config.to_json()) == config
    assert fc.ReviewConfig(mapping=BINARY).to_dict()["subgroup_thresholds"] == {}
    for bad in ({"score_logistic": 0.5}, ["score_logistic"], {"score_logistic": {"Group A": "high"}}):
        with pytest.raises(ValueError, match="configuration is not valid"):
            fc.ReviewConfig.from_dict(data | {"subgroup_thresholds": bad})


def test_classwise_bias_of_a_multi_class_label_equals_the_rows():
    config = fc.ReviewConfig(mapping=CLASSES, ci=None, classwise_metric="recall",
                             classwise_reduction="absolute_difference")
    review = fc.build_review(CREDIT, config)
    (model,) = review.models
    assert model.kind == "predictions" and model.classwise is not None
    # default pair: the two largest subgroups, largest first
    sizes = CREDIT["sex"].value_counts()
    assert model.classwise.subgroups == tuple(sizes.index[:2])
    recall = {(sex, c): (CREDIT.loc[(CREDIT["sex"] == sex) & (CREDIT["repayment_status"] == c), "predicted_status"]
                         == c).mean() for sex in sizes.index for c in ("default", "late", "on_time")}
    first, second = sizes.index[:2]
    expected = np.mean([abs(recall[first, c] - recall[second, c]) for c in ("default", "late", "on_time")])
    assert model.classwise.value == pytest.approx(expected, abs=1e-12)
    assert set(fc.classwise_findings(model.classwise)) <= set(model.findings)
    tables = review.tables()
    pd.testing.assert_frame_equal(tables["predicted_status.classwise_per_class"], model.classwise.per_class)
    exported = json.loads(review.to_json())
    assert exported["models"][0]["headline"]["unweighted_average_bias"] == model.classwise.value
    assert "predicted_status.classwise" in exported["tables"]
    html = fc.render_report(review)
    assert "Class-wise bias: unweighted average bias" in html and "Recall per class and subgroup" in html
    # a two-class label has no class-wise tables (its per-class recall and precision are the rates)
    binary = fc.build_review(CREDIT, fc.ReviewConfig(mapping=BINARY, ci=None))
    assert all(m.classwise is None for m in binary.models)
    assert not [k for k in binary.tables() if "classwise" in k]


def test_consistency_when_configured_with_its_sample():
    rows = CREDIT[CREDIT["ethnicity"] != "Group E"].reset_index(drop=True)
    config = fc.ReviewConfig(mapping=PREDICTED, ci=None, slice=fc.Slice((fc.Condition("ethnicity", values=(
        "Group A", "Group B", "Group C", "Group D")),)), consistency_features=("income", "debt_to_income"),
        consistency_neighbors=4, consistency_sample=1000)
    review = fc.build_review(CREDIT, config)
    y = (rows["repaid"] == 1).to_numpy()
    expected = fc.consistency(rows[["income", "debt_to_income"]], y, n_neighbors=4, sample_size=1000, random_state=0)
    assert review.consistency == expected and review.consistency.n_sampled == 1000
    table = review.tables()["consistency"]
    assert table.iloc[0]["value"] == expected.value and table.iloc[0]["features"] == "income, debt_to_income"
    assert json.loads(review.to_json())["dataset"]["consistency"] == expected.value
    every = fc.build_review(CREDIT, dataclasses.replace(config, consistency_sample=None))
    assert every.consistency.n_sampled == len(rows) and every.consistency.std_error == 0.0
    assert "Consistency (similar rows, similar labels)" in fc.render_report(review)
    assert fc.build_review(CREDIT, fc.ReviewConfig(mapping=PREDICTED, ci=None)).consistency is None  # not asked
    for features, message in ((("income", "nope"), "not columns"), (("income", "sex"), "numeric")):
        with pytest.raises(ValueError, match=message):
            fc.build_review(CREDIT, fc.ReviewConfig(mapping=PREDICTED, ci=None, consistency_features=features))


def test_per_subgroup_thresholds_equal_thresholding_each_row():
    config = fc.ReviewConfig(mapping=BINARY, ci=None, thresholds=(("score_logistic", 0.55),),
                             rate_metrics=("false_positive_rate", "selection_rate"),
                             subgroup_thresholds={"score_logistic": OWN})
    review = fc.build_review(CREDIT, config)
    logistic, boosting = review.models
    assert boosting.subgroup_thresholds is None
    effect = logistic.subgroup_thresholds
    table = effect.table
    y, score, groups = CREDIT["repaid"].to_numpy(), CREDIT["score_logistic"].to_numpy(), CREDIT["ethnicity"].to_numpy()
    own = score >= np.array([OWN.get(g, 0.55) for g in groups])
    single = score >= 0.55
    assert list(table["subgroup"]) == ["All rows", *sorted(set(groups))]
    for row in table.itertuples():
        rows = np.ones(len(y), bool) if row.subgroup == "All rows" else groups == row.subgroup
        for name, pred in (("own", own), ("single", single)):
            p, t = pred[rows], y[rows] == 1
            assert getattr(row, f"false_positive_rate_{name}") == pytest.approx(p[~t].mean(), abs=1e-12)
            assert getattr(row, f"selection_rate_{name}") == pytest.approx(p.mean(), abs=1e-12)
            assert getattr(row, f"accuracy_{name}") == pytest.approx((p == t).mean(), abs=1e-12)
        if row.subgroup != "All rows":
            assert row.threshold == OWN.get(row.subgroup, 0.55)
    fpr = {g: own[(groups == g) & (y == 0)].mean() for g in sorted(set(groups))}
    rest = {g: own[(groups != g) & (y == 0)].mean() for g in fpr}
    assert effect.disparities.set_index("rate").loc["false_positive_rate", "own"] == pytest.approx(
        max(abs(fpr[g] - rest[g]) for g in fpr), abs=1e-12)
    assert "score_logistic.subgroup_thresholds" in json.loads(review.to_json())["tables"]
    assert "Per-subgroup thresholds" in fc.render_report(review)
    with pytest.raises(ValueError, match="do not exist"):
        fc.build_review(CREDIT, fc.ReviewConfig(mapping=BINARY, ci=None, subgroup_thresholds={
            "score_logistic": {"Group Z": 0.5}}))
    with pytest.raises(ValueError, match="not mapped score columns"):
        fc.build_review(CREDIT, fc.ReviewConfig(mapping=BINARY, ci=None, subgroup_thresholds={"x": OWN}))
    overlapping = fc.ColumnMapping(label="repaid", positive_label=1, scores=("score_logistic",),
                                   protected=("ethnicity", "sex"), intersect=False)
    with pytest.raises(ValueError, match="do not overlap"):
        fc.build_review(CREDIT, fc.ReviewConfig(mapping=overlapping, ci=None, subgroup_thresholds={
            "score_logistic": {"Group A": 0.5}}))


def test_command_line_carries_the_configured_tables(tmp_path, capsys):
    config = fc.ReviewConfig(mapping=BINARY, ci=None, subgroup_thresholds={"score_boosting": OWN},
                             consistency_features=("income",))
    path = tmp_path / "config.json"
    path.write_text(config.to_json(), encoding="utf-8")
    status = main(["metrics", str(CREDIT_FILE), "--config", str(path), "--out", str(tmp_path / "review.json")])
    assert status in (0, 1)
    exported = json.loads((tmp_path / "review.json").read_text(encoding="utf-8"))
    expected = fc.build_review(CREDIT, config)
    assert exported["dataset"]["consistency"] == expected.consistency.value
    stored = exported["tables"]["score_boosting.subgroup_thresholds"]
    np.testing.assert_allclose([r[-1] for r in stored["rows"]],
                               expected.models[1].subgroup_thresholds.table["accuracy_own"], rtol=0, atol=1e-12)
    capsys.readouterr()


def test_threshold_chart_legend_follows_the_order_and_keeps_colours():
    tc = fc.threshold_counts([0, 1, 1, 0, 1, 0], [0.2, 0.7, 0.4, 0.9, 0.5, 0.1], ["a", "a", "b", "b", "c", "c"])
    curves = fc.threshold_curves(tc, ["true_positive_rate"], [0.3, 0.5])
    by_name = plotting.threshold_chart(curves, "true_positive_rate")
    ordered = plotting.threshold_chart(curves, "true_positive_rate", order=["c", "a"])
    assert [t.name for t in by_name.data] == ["a", "b", "c", "All rows"]
    assert [t.name for t in ordered.data] == ["c", "a", "b", "All rows"]
    colors = {t.name: t.line.color for t in by_name.data}
    assert {t.name: t.line.color for t in ordered.data} == colors
    assert list(ordered.data[0].y) == list(curves.loc[(curves["subgroup"] == "c"), "value"])
