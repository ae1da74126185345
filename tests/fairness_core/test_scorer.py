"""Fairness metrics as scikit-learn scorers (make_fairness_scorer), against direct calls and literal pandas."""

from __future__ import annotations

import pickle
import re

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.svm import LinearSVC
from sklearn.tree import DecisionTreeClassifier

import fairness_core as fc
from fairness_core._integrations.sklearn_scorer import (
    BOTH_MESSAGE,
    METRIC_MESSAGE,
    ONE_COLUMN_MESSAGE,
    OPTION_MESSAGE,
    REDUCTION_NONE_MESSAGE,
    X_FRAME_MESSAGE,
    Y_TRUE_MESSAGE,
)

TOL = 1e-12


@pytest.fixture(scope="module")
def data():
    """A seeded problem where the label depends on a feature and on a binary group."""
    rng = np.random.default_rng(42)
    n = 300
    group = rng.integers(0, 2, n)
    x1 = rng.normal(size=n) + 0.8 * group
    x2 = rng.normal(size=n)
    logit = 1.5 * x1 + 0.7 * x2 - 0.5 + 0.8 * group
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    region = rng.choice(["north", "south", "west"], n)
    # A non-default index, so that aligning supplementary features by index is really exercised.
    index = pd.Index(np.arange(n) * 3 + 7, name="row")
    X = pd.DataFrame({"x1": x1, "x2": x2, "group": group}, index=index)
    supp = pd.DataFrame({"region": region, "sex": np.where(group == 1, "F", "M")}, index=index)
    return X, pd.Series(y, index=index, name="y"), supp


def literal_parity_gap(pred: np.ndarray, group: np.ndarray) -> float:
    """|P(pred = 1 | group 0) - P(pred = 1 | group 1)|: statistical parity with two groups."""
    frame = pd.DataFrame({"p": pred, "g": group})
    rates = frame.groupby("g")["p"].mean()
    return abs(rates.iloc[0] - rates.iloc[1])


def literal_two_group_theil(y: np.ndarray, pred: np.ndarray, group: np.ndarray) -> float:
    """Replace each row's benefit by its group's mean benefit; Theil index of the rows (two groups)."""
    b = pd.Series(pred - y + 1.0)
    means = b.groupby(group).transform("mean").to_numpy()
    r = means / means.mean()
    return float(np.mean(np.where(r > 0, r * np.log(np.where(r > 0, r, 1)), 0.0)))


# --------------------------------------------------------------------------------------------
# GridSearchCV picks the fairest parameter
# --------------------------------------------------------------------------------------------


def independent_mean_scores(estimator, grid_name, grid, X, y, cv, fold_score):
    means = []
    for value in grid:
        scores = []
        for train, test in cv.split(X, y):
            model = clone(estimator).set_params(**{grid_name: value})
            model.fit(X.iloc[train], y.iloc[train])
            scores.append(fold_score(model, test))
        means.append(np.mean(scores))
    return np.array(means)


def test_grid_search_with_protected_column_in_x(data):
    X, y, _ = data
    cv = KFold(3, shuffle=True, random_state=0)
    grid = [1, 2, 3, 6]
    scorer = fc.make_fairness_scorer("statistical_parity", "group", reduction="max")
    search = GridSearchCV(DecisionTreeClassifier(random_state=0), {"max_depth": grid}, scoring=scorer, cv=cv)
    search.fit(X, y)

    def fold_score(model, test):
        pred = model.predict(X.iloc[test])
        return -literal_parity_gap(pred, X["group"].to_numpy()[test])

    expected = independent_mean_scores(DecisionTreeClassifier(random_state=0), "max_depth", grid, X, y, cv, fold_score)
    np.testing.assert_allclose(search.cv_results_["mean_test_score"], expected, rtol=0, atol=TOL)
    assert len(set(np.round(expected, 12))) > 1  # the parameter matters
    assert search.best_params_ == {"max_depth": grid[int(np.argmax(expected))]}


def test_grid_search_with_protected_column_in_supplementary_features(data):
    X, y, supp = data
    features = X[["x1", "x2"]]  # the model never sees the group
    cv = KFold(4, shuffle=True, random_state=1)
    grid = [1, 2, 4, 8]
    scorer = fc.make_fairness_scorer("theil_index", "sex", supplementary_features=supp, reduction="max")
    search = GridSearchCV(DecisionTreeClassifier(random_state=0), {"max_depth": grid}, scoring=scorer, cv=cv)
    search.fit(features, y)

    def fold_score(model, test):
        pred = model.predict(features.iloc[test])
        return -literal_two_group_theil(y.to_numpy()[test], pred, supp["sex"].to_numpy()[test])

    expected = independent_mean_scores(DecisionTreeClassifier(random_state=0), "max_depth", grid, features, y, cv,
                                       fold_score)
    np.testing.assert_allclose(search.cv_results_["mean_test_score"], expected, rtol=0, atol=TOL)
    assert len(set(np.round(expected, 12))) > 1
    assert search.best_params_ == {"max_depth": grid[int(np.argmax(expected))]}


def test_grid_search_numpy_x_with_integer_column(data):
    X, y, _ = data
    arr, target = X.to_numpy(), y.to_numpy()
    cv = KFold(3, shuffle=True, random_state=2)
    grid = [0.001, 0.1, 10.0]
    scorer = fc.make_fairness_scorer("p_percent_score", 2)  # column 2 is the 0/1 group
    search = GridSearchCV(LogisticRegression(), {"C": grid}, scoring=scorer, cv=cv).fit(arr, target)
    expected = []
    for c in grid:
        scores = []
        for train, test in cv.split(arr):
            pred = LogisticRegression(C=c).fit(arr[train], target[train]).predict(arr[test])
            rates = pd.Series(pred).groupby(arr[test, 2]).mean()
            r0, r1 = rates.loc[0.0], rates.loc[1.0]
            # The contract's rule: both rates 0 (a model that never predicts 1) is parity.
            scores.append(1.0 if r0 == r1 == 0 else (0.0 if 0 in (r0, r1) else min(r0 / r1, r1 / r0)))
        expected.append(np.mean(scores))
    np.testing.assert_allclose(search.cv_results_["mean_test_score"], expected, rtol=0, atol=TOL)
    assert len(set(np.round(expected, 12))) == len(grid)
    assert search.best_params_ == {"C": grid[int(np.argmax(expected))]}


# --------------------------------------------------------------------------------------------
# Direct calls equal the functions (negated where lower is better)
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fitted(data):
    X, y, _ = data
    return LogisticRegression().fit(X, y)


RATE_FUNCTIONS = ["statistical_parity", "true_positive_rate", "false_positive_rate", "false_negative_rate",
                  "false_omission_rate", "false_discovery_rate", "error_rate"]


@pytest.mark.parametrize("metric", RATE_FUNCTIONS)
def test_rate_scorers_are_negated_disparities(data, fitted, metric):
    X, y, supp = data
    pred = fitted.predict(X)
    groups = pd.DataFrame({"group": X["group"].to_numpy(), "region": supp["region"].to_numpy()})
    scorer = fc.make_fairness_scorer(metric, ["group", "region"], supplementary_features=supp,
                                     distance_measure="ratio", reference="pairwise", reduction="max")
    assert scorer.sign == -1 and scorer.metric == metric
    expected = fc.rate_disparity(y, pred, groups, metric=metric, distance_measure="ratio", reference="pairwise",
                                 reduction="max").value
    assert scorer(fitted, X, y) == pytest.approx(-expected, abs=TOL)


def test_aliases_and_orientation(data, fitted):
    X, y, _ = data
    pred = fitted.predict(X)
    sp = fc.make_fairness_scorer("model_statistical_parity", "group")
    assert sp.metric == "statistical_parity"
    value = fc.model_statistical_parity(None, pred, X["group"]).value
    assert sp(fitted, X) == pytest.approx(-value, abs=TOL)  # y_true is optional here
    assert fc.make_fairness_scorer("true_positive_rate_disparity", "group").metric == "true_positive_rate"
    raw = fc.make_fairness_scorer("statistical_parity", "group", greater_is_better=True)
    assert raw.sign == 1 and raw(fitted, X, y) == pytest.approx(value, abs=TOL)
    neg_p = fc.make_fairness_scorer("p_percent_score", "group", greater_is_better=False)
    assert neg_p.sign == -1
    assert neg_p(fitted, X, y) == pytest.approx(-fc.p_percent_score(pred, X["group"]).value, abs=TOL)
    assert pickle.loads(pickle.dumps(sp))(fitted, X) == sp(fitted, X)


def test_model_metric_scorers_equal_function_values(data, fitted):
    X, y, supp = data
    pred = fitted.predict(X)
    proba = fitted.predict_proba(X)[:, 1]
    g = X["group"].to_numpy()
    region = supp["region"].to_numpy()
    sex = supp["sex"].to_numpy()
    frame = pd.DataFrame({"region": region})
    cases = {
        ("equalized_odds", "group"): -fc.equalized_odds(y, pred, g, reduction="mean").value,
        ("theil_index", "group"): -fc.theil_index(y, pred, g).value,
        ("p_percent_score", "group"): fc.p_percent_score(pred, g).value,
        ("equal_opportunity_score", "group"): fc.equal_opportunity_score(y, pred, g).value,
        ("correlation_score", "group"): fc.correlation_score(pred, g),
        ("unweighted_average_bias", "group"): -fc.unweighted_average_bias(y, pred, g).value,
        ("bias_auc_score", "group"): fc.bias_auc_score(y, proba, g).value,
        ("calibration_disparity", "group"): -fc.calibration_disparity(y, proba, g).value,
        ("theil_index", "region"): -fc.theil_index(y, pred, frame).value,
    }
    for (metric, column), expected in cases.items():
        source = {} if column in X.columns else {"supplementary_features": supp}
        scorer = fc.make_fairness_scorer(metric, column, **source)
        assert scorer(fitted, X, y) == pytest.approx(expected, abs=TOL), metric
    # p% and equal opportunity on a many-valued attribute: the minimum over subgroups vs the rest (pandas).
    for metric, on_positives in (("p_percent_score", False), ("equal_opportunity_score", True)):
        rows = pd.DataFrame({"p": pred, "y": y.to_numpy(), "r": region})
        rows = rows[rows["y"] == 1] if on_positives else rows
        scores = []
        for value in sorted(set(region)):
            a, b = rows.loc[rows["r"] == value, "p"].mean(), rows.loc[rows["r"] != value, "p"].mean()
            scores.append(min(a / b, b / a))
        scorer = fc.make_fairness_scorer(metric, "region", supplementary_features=supp)
        assert scorer(fitted, X, y) == pytest.approx(min(scores), abs=TOL)
    # Two-valued text attribute: the same number as the 0/1 attribute.
    scorer = fc.make_fairness_scorer("p_percent_score", "sex", supplementary_features=supp)
    assert scorer(fitted, X, y) == pytest.approx(fc.p_percent_score(pred, g).value, abs=TOL)
    assert (sex == np.where(g == 1, "F", "M")).all()


def test_dataset_metrics_do_not_need_a_model(data):
    X, y, supp = data
    frame = supp[["region"]].reset_index(drop=True)
    dsp = fc.make_fairness_scorer("dataset_statistical_parity", "region", supplementary_features=supp,
                                  reduction="max")
    assert dsp(None, X, y) == pytest.approx(-fc.dataset_statistical_parity(y, frame, reduction="max").value, abs=TOL)
    edf = fc.make_fairness_scorer("smoothed_edf", ["group", "region"], supplementary_features=supp, concentration=2.0)
    both = pd.DataFrame({"group": X["group"].to_numpy(), "region": supp["region"].to_numpy()})
    assert edf(None, X, y) == pytest.approx(-fc.smoothed_edf(y, both, concentration=2.0).value, abs=TOL)


def test_scores_follow_positive_target_and_decision_function(data):
    X, y, _ = data
    labels = pd.Series(np.where(y == 1, "yes", "no"), index=y.index)
    model = LogisticRegression().fit(X, labels)
    assert list(model.classes_) == ["no", "yes"]
    proba_no = model.predict_proba(X)[:, 0]
    scorer = fc.make_fairness_scorer("bias_auc_score", "group", positive_target="no")
    assert scorer(model, X, labels) == pytest.approx(
        fc.bias_auc_score(labels == "no", proba_no, X["group"]).value, abs=TOL)
    pred_yes = model.predict(X) == "yes"
    tpr = fc.make_fairness_scorer("true_positive_rate", "group", positive_target="yes")
    assert tpr(model, X, labels) == pytest.approx(
        -fc.true_positive_rate_disparity(labels == "yes", pred_yes, X["group"]).value, abs=TOL)
    # No predict_proba: bias AUC uses the decision function; calibration cannot.
    svm = LinearSVC().fit(X, y)
    scorer = fc.make_fairness_scorer("bias_auc_score", "group")
    assert scorer(svm, X, y) == pytest.approx(
        fc.bias_auc_score(y, svm.decision_function(X), X["group"]).value, abs=TOL)
    with pytest.raises(TypeError, match="needs scores"):
        fc.make_fairness_scorer("calibration_disparity", "group")(svm, X, y)


def test_call_time_supplementary_features_are_row_aligned(data, fitted):
    X, y, supp = data
    scorer = fc.make_fairness_scorer("theil_index", "region")
    pred = fitted.predict(X)
    shuffled_index = supp.reset_index(drop=True)  # positions, not labels, align at call time
    expected = -fc.theil_index(y, pred, supp["region"].to_numpy()).value
    assert scorer(fitted, X, y, supplementary_features=shuffled_index) == pytest.approx(expected, abs=TOL)


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------


def test_errors(data, fitted):
    X, y, supp = data
    with_group = supp.assign(group=X["group"])
    scorer = fc.make_fairness_scorer("statistical_parity", "group", supplementary_features=with_group)
    with pytest.raises(ValueError, match=re.escape(BOTH_MESSAGE.format(name="group"))):
        scorer(fitted, X, y)
    with pytest.raises(ValueError, match=re.escape(BOTH_MESSAGE.format(name="group"))):
        fc.make_fairness_scorer("statistical_parity", "group")(fitted, X, y, supplementary_features=with_group)
    with pytest.raises(ValueError, match=re.escape("The 'metric' parameter of make_fairness_scorer must be one of")):
        fc.make_fairness_scorer("accuracy", "group")
    assert "{allowed}" in METRIC_MESSAGE
    with pytest.raises(ValueError, match=re.escape(REDUCTION_NONE_MESSAGE.format(metric="theil_index",
                                                                                  function="theil_index"))):
        fc.make_fairness_scorer("theil_index", "group", reduction=None)
    with pytest.raises(TypeError, match=re.escape(OPTION_MESSAGE.format(
            metric="smoothed_edf", allowed=["concentration", "include_small"], got="reduction"))):
        fc.make_fairness_scorer("smoothed_edf", "group", reduction="max")
    with pytest.raises(ValueError, match=re.escape(Y_TRUE_MESSAGE.format(metric="equalized_odds"))):
        fc.make_fairness_scorer("equalized_odds", "group")(fitted, X)
    with pytest.raises(ValueError, match=re.escape(ONE_COLUMN_MESSAGE.format(got=["group", "x2"]))):
        fc.make_fairness_scorer("correlation_score", ["group", "x2"])(fitted, X, y)
    with pytest.raises(TypeError, match=re.escape(X_FRAME_MESSAGE.format(got="ndarray"))):
        fc.make_fairness_scorer("statistical_parity", "sex", supplementary_features=supp)(fitted, X.to_numpy(), y)
    with pytest.raises(ValueError, match="is neither a column of X"):
        fc.make_fairness_scorer("statistical_parity", "age")(fitted, X, y)
    with pytest.raises(ValueError, match="index labels"):
        fc.make_fairness_scorer("statistical_parity", "sex", supplementary_features=supp.iloc[:10])(fitted, X, y)
    with pytest.raises(ValueError, match="'protected_attributes' parameter"):
        fc.make_fairness_scorer("statistical_parity", [])
    with pytest.raises(ValueError, match="'distance_measure' parameter of theil_index must be None"):
        fc.make_fairness_scorer("theil_index", "group", distance_measure="diff")


@pytest.mark.parametrize("metric", sorted(fc._integrations.sklearn_scorer.METRICS))
def test_the_scorer_passes_its_sample_weight_to_the_metric(data, metric):
    """The scorer hands its sample_weight to the metric: integer weights give the score of the rows repeated that
    many times (every metric but the calibration disparity, whose debiased ECE counts effective rows: there the
    direct call's value), and unit weights the unweighted score."""
    X, y, supp = data
    attributes = ["group"] if metric in ("p_percent_score", "equal_opportunity_score", "correlation_score") \
        else ["region"]
    options = ({"reduction": "std"} if metric == "unweighted_average_bias" else {"reduction": "max"}
               if "reduction" in fc._integrations.sklearn_scorer.METRICS[metric].options else {})
    scorer = fc.make_fairness_scorer(metric, attributes, **options)
    model = LogisticRegression().fit(X, y)
    w = np.random.default_rng(3).integers(0, 4, len(y))
    repeated = np.repeat(np.arange(len(y)), w)
    X_rep, y_rep = X.iloc[repeated], y.iloc[repeated]
    supp_rep = supp.iloc[repeated] if attributes == ["region"] else None
    supp_w = supp if attributes == ["region"] else None
    if supp_rep is not None:   # repeated rows keep their index: the features are aligned by position here
        X_rep, supp_rep = X_rep.reset_index(drop=True), supp_rep.reset_index(drop=True)
    weighted = scorer(model, X, y, supplementary_features=supp_w, sample_weight=w)
    if metric == "calibration_disparity":   # its debiased ECE counts a bin's effective rows, not repeated ones
        direct = fc.calibration_disparity(y.to_numpy(), model.predict_proba(X)[:, 1], supp[["region"]],
                                          reduction="max", sample_weight=w)
        assert weighted == pytest.approx(-direct.value, rel=1e-12)
        return
    plain = scorer(model, X_rep, y_rep, supplementary_features=supp_rep)
    assert weighted == pytest.approx(plain, rel=1e-9, abs=1e-12)
    assert scorer(model, X, y, supplementary_features=supp_w, sample_weight=np.ones(len(y))) == pytest.approx(
        scorer(model, X, y, supplementary_features=supp_w), rel=1e-12, abs=1e-15)
