"""The review's differences from a baseline model (ReviewConfig.baseline): tables, JSON, report, configuration."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from tests.support import ROOT

CREDIT = ROOT / "sample_data" / "credit_decisions.csv"
SCORES = ("score_logistic", "score_boosting")


@pytest.fixture(scope="module")
def credit():
    frame = fc.read_table(CREDIT)
    mapping = fc.ColumnMapping(label="repaid", positive_label=1, scores=SCORES, protected=("ethnicity",))
    config = fc.ReviewConfig(mapping=mapping, thresholds=(("score_logistic", 0.4),), baseline="score_logistic",
                             n_boot=100, rate_metrics=("false_positive_rate", "selection_rate"))
    return frame, config, fc.build_review(frame, config, source={"name": CREDIT.name})


def test_difference_tables_equal_the_library_functions(credit):
    frame, config, review = credit
    scored = fc.ScoredData.from_frame(frame, config.mapping)
    y, groups = scored.y_true, scored.subgroups
    boot = dict(ci=0.95, n_boot=100, random_state=0)
    predictions = {"score_logistic": scored.scores["score_logistic"] >= 0.4,
                   "score_boosting": scored.scores["score_boosting"] >= 0.5}
    rates = fc.compare_models(y, predictions, groups, baseline="score_logistic",
                              quantities=["false_positive_rate", "statistical_parity", "equalized_odds",
                                          "p_percent_score", "equal_opportunity_score"], **boot)
    pd.testing.assert_frame_equal(review.differences["rates"], rates)
    pd.testing.assert_frame_equal(review.differences["aucs"],
                                  fc.compare_model_aucs(y, scored.scores, groups, baseline="score_logistic"))
    calibration = fc.compare_model_calibration(y, scored.scores, groups, baseline="score_logistic", **boot)
    pd.testing.assert_frame_equal(review.differences["calibration"], calibration)
    boosting = review.differences["aucs"].query("model == 'score_boosting' and auc == 'overall_auc'").iloc[0]
    assert boosting["value"] == review.models[1].bias_auc.overall_auc
    assert boosting["baseline_value"] == review.models[0].bias_auc.overall_auc


def test_tables_json_and_report_carry_them(credit):
    _, _, review = credit
    tables = review.tables()
    names = ["score_logistic.rate_differences", "score_logistic.auc_differences",
             "score_logistic.calibration_differences"]
    assert names == [n for n in tables if n.endswith("_differences")]
    data = json.loads(review.to_json())
    for name, kind in zip(names, ("rates", "aucs", "calibration")):
        frame = review.differences[kind]
        stored = data["tables"][name]
        assert stored["columns"] == list(frame.columns)
        got = pd.DataFrame(stored["rows"], columns=stored["columns"])["difference"].astype(float).to_numpy()
        np.testing.assert_allclose(got, frame["difference"].to_numpy(), rtol=1e-12, atol=1e-12)
    assert data["context"]["configuration"]["options"]["baseline"] == "score_logistic"
    html = fc.render_report(review)
    assert "Differences from the baseline model score_logistic" in html
    assert html.count("<h3>AUCs</h3>") == 1 and "Expected calibration error</h3>" in html


def test_baseline_round_trips_and_is_checked(credit):
    frame, config, _ = credit
    assert fc.ReviewConfig.from_json(config.to_json()) == config
    assert fc.ReviewConfig.from_json(config.to_json()).baseline == "score_logistic"
    plain = fc.ReviewConfig(mapping=config.mapping, n_boot=100, ci=None)
    assert plain.baseline is None and fc.build_review(frame, plain).differences == {}
    one = fc.ReviewConfig(mapping=fc.ColumnMapping(label="repaid", positive_label=1, scores=("score_logistic",),
                                                   protected=("ethnicity",)), baseline="score_logistic", ci=None)
    assert fc.build_review(frame, one).differences == {}          # a single model has nothing to differ from
    with pytest.raises(ValueError, match="options.baseline: 'approved' is not one of the mapping's scores"):
        fc.ReviewConfig(mapping=config.mapping, baseline="approved", ci=None)   # refused as the configuration is made
