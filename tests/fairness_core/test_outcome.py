"""Outcome semantics: the event a score predicts, and whether a positive
prediction of it is favourable or adverse for the person, are declared apart. The four-fifths rule, the p% and equal
opportunity scores and the Theil benefit follow the favourable outcome; ranking and calibration follow the event."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc


def credit(n: int = 6000, seed: int = 0) -> pd.DataFrame:
    """A bank's file: deny = yes / no, a score of denial, applicants of two races approved at different rates."""
    rng = np.random.default_rng(seed)
    race = rng.choice(["White", "Black"], n, p=[0.8, 0.2])
    risk = rng.beta(2, 5, n) + np.where(race == "Black", 0.15, 0.0)
    deny = rng.random(n) < np.clip(risk, 0, 1)
    score = np.clip(risk + rng.normal(0, 0.1, n), 0, 1)
    return pd.DataFrame({"deny": np.where(deny, "yes", "no"), "score": score, "race": race})


def review_of(frame: pd.DataFrame, outcome: str, positive: str = "yes", **options) -> fc.Review:
    mapping = fc.ColumnMapping(label="deny", positive_label=positive, scores=("score",), protected=("race",),
                               positive_outcome=outcome)
    return fc.build_review(frame, fc.ReviewConfig(mapping=mapping, thresholds=(("score", 0.5),), n_boot=200,
                                                  **options))


def test_the_four_fifths_rule_compares_approval_rates_when_denial_is_adverse():
    frame = credit()
    review = review_of(frame, "adverse")
    model = review.models[0]
    denied = frame["score"] >= 0.5
    approval = (~denied).groupby(frame["race"]).mean()
    by_hand = min(approval["Black"] / approval["White"], approval["White"] / approval["Black"])
    assert model.p_percent.value == pytest.approx(by_hand, abs=1e-12)
    four_fifths = next(v for v in model.verdicts if v.rule.name == "four_fifths")
    assert four_fifths.value == pytest.approx(by_hand, abs=1e-12)
    # Declared favourable (as if denial were good for the person), the same predictions give the denial ratio.
    denial = denied.groupby(frame["race"]).mean()
    as_favourable = review_of(frame, "favourable").models[0]
    assert as_favourable.p_percent.value == pytest.approx(denial.min() / denial.max(), abs=1e-12)
    assert as_favourable.p_percent.value < model.p_percent.value


def test_equal_opportunity_and_the_theil_benefit_follow_the_favourable_outcome():
    frame = credit(seed=1)
    model = review_of(frame, "adverse").models[0]
    y = (frame["deny"] == "yes").to_numpy()
    pred = (frame["score"] >= 0.5).to_numpy()
    approved_when_deserving = {g: (~pred[(frame["race"] == g).to_numpy() & ~y]).mean() for g in ("White", "Black")}
    a, b = approved_when_deserving["Black"], approved_when_deserving["White"]
    assert model.equal_opportunity.value == pytest.approx(min(a / b, b / a), abs=1e-12)
    # The Theil index of the benefit (1 - pred) - (1 - y) + 1 = y - pred + 1, literal.
    benefit = y.astype(float) - pred + 1
    mu = benefit.mean()
    ratio = np.where(benefit > 0, benefit / mu, 1.0)
    individual = float(np.mean(ratio * np.log(ratio)))
    counts = fc.confusion_counts(y.astype(int), pred.astype(int), frame["race"]).favourable("adverse")
    assert counts.individual_theil_index() == pytest.approx(individual, abs=1e-12)


def test_the_aucs_and_calibration_do_not_depend_on_the_outcome_declared():
    frame = credit(seed=2)
    adverse, favourable = (review_of(frame, o).models[0] for o in ("adverse", "favourable"))
    pd.testing.assert_frame_equal(adverse.auc_table, favourable.auc_table)
    assert adverse.bias_auc.value == favourable.bias_auc.value
    pd.testing.assert_frame_equal(adverse.calibration.table, favourable.calibration.table)
    pd.testing.assert_frame_equal(adverse.rate_table, favourable.rate_table)


def test_a_reversed_score_is_said():
    frame = credit(seed=3)
    model = review_of(frame, "favourable", positive="no").models[0]   # the score predicts "yes"
    assert model.bias_auc.overall_auc < 0.5
    assert model.findings[0].startswith(f"The overall AUC is {model.bias_auc.overall_auc:.3f}, below 0.5")
    assert "(deny = no)" in model.findings[0]
    assert not any("below 0.5" in f for f in review_of(frame, "adverse").models[0].findings)


def test_the_outcome_round_trips_and_is_checked():
    mapping = fc.ColumnMapping(label="deny", positive_label="yes", scores=("s",), positive_outcome="adverse")
    config = fc.ReviewConfig(mapping=mapping)
    assert fc.ReviewConfig.from_json(config.to_json()).mapping.adverse
    with pytest.raises(ValueError, match="'favourable' or 'adverse'"):
        fc.ColumnMapping(label="y", positive_label=1, positive_outcome="bad")
    with pytest.raises(ValueError, match="mapping.positive_outcome: 'good' is not one of"):
        fc.ReviewConfig.from_dict(config.to_dict() | {"mapping": config.to_dict()["mapping"] | {
            "positive_outcome": "good"}})


@pytest.mark.parametrize("label, positive, outcome", [
    ("deny", "yes", "adverse"), ("two_year_recid", 1, "adverse"), ("is_fraud", True, "adverse"),
    ("loan_default", 1, "adverse"), ("toxicity", "toxic", "adverse"), ("churned", 1, "adverse"),
    ("outcome", "rejected", "adverse"), ("repaid", 1, "favourable"), ("income", ">50K", "favourable"),
    ("approved", "yes", "favourable"), ("hired", 1, "favourable")])
def test_the_guess_proposes_adverse_for_labels_that_read_like_a_harm(label, positive, outcome):
    assert fc.guess_outcome(label, positive)[0] == outcome


def test_the_command_line_takes_the_outcome_and_says_its_guess(tmp_path):
    path = tmp_path / "credit.csv"
    credit(n=3000, seed=4).to_csv(path, index=False)
    flags = ["--label", "deny", "--positive", "yes", "--score", "score", "--protected", "race", "--threshold", "0.5",
             "--no-intervals"]

    def run(*extra):
        done = subprocess.run([sys.executable, "-m", "fairness_core", "metrics", str(path), *flags, *extra],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode in (0, 1), done.stderr
        import json
        return json.loads(done.stdout), done.stderr

    guessed, note = run()
    assert "taken as adverse for the person, because the label's name reads like a harm (deny)" in note
    assert guessed["context"]["configuration"]["mapping"]["positive_outcome"] == "adverse"
    told, note = run("--outcome", "favourable")
    assert "taken as adverse" not in note
    assert told["context"]["configuration"]["mapping"]["positive_outcome"] == "favourable"
    assert "labels" in note and "(reported, not gating)" in note


def test_model_differences_follow_the_favourable_outcome():
    frame = credit(seed=5)
    y = (frame["deny"] == "yes").astype(int).to_numpy()
    preds = {"strict": (frame["score"] >= 0.4).to_numpy(), "lenient": (frame["score"] >= 0.6).to_numpy()}
    table = fc.compare_models(y, preds, frame["race"], baseline="lenient", ci=None,
                              quantities=("false_positive_rate", "p_percent_score", "equal_opportunity_score"),
                              positive_outcome="adverse").set_index(["model", "quantity"])
    for name, p in preds.items():
        counts = fc.confusion_counts(y, p.astype(int), frame["race"]).favourable("adverse")
        assert table.loc[(name, "p_percent_score"), "value"] == pytest.approx(
            counts.ratio_scores("selection_rate").value, abs=1e-12)
        assert table.loc[(name, "equal_opportunity_score"), "value"] == pytest.approx(
            counts.ratio_scores("true_positive_rate").value, abs=1e-12)
        plain = fc.confusion_counts(y, p.astype(int), frame["race"])
        assert table.loc[(name, "false_positive_rate"), "value"] == pytest.approx(
            plain.disparity("false_positive_rate", reduction="max").value, abs=1e-12)
    assert list(table.index.get_level_values("quantity")[:3]) == ["false_positive_rate", "p_percent_score",
                                                                  "equal_opportunity_score"]
