"""AppTest: the Class-wise bias and Dataset metrics pages, the rate page's Theil and ratio scores,
the sidebar's subgroup options and slice — with the numbers checked against plain pandas."""

import math

import numpy as np
import pandas as pd
import pytest

from tests.app.helpers import ROOT, figures, metrics, open_section, widget
from fairness_dashboard.presentation import formats

CREDIT = pd.read_csv(ROOT / "sample_data" / "credit_decisions.csv")


def num(value: float) -> str:
    """A tile's display of a metric value (fairness_dashboard.presentation.formats.tile, the tiles' one policy; tested in tests/ui)."""
    return formats.tile(value)


def test_rate_page_shows_theil_and_ratio_scores_that_match_pandas(app):
    open_section(app, "rates:section", "p% scores", run=False)
    app.switch_page("pages/rate_disparities.py").run()
    assert not app.exception
    shown = metrics(app)
    approved = CREDIT["score_logistic"] >= 0.5  # the page's default: score_logistic >= 0.5
    p_scores, eo_scores = [], []
    for group in CREDIT["ethnicity"].unique():
        member = CREDIT["ethnicity"] == group
        a, b = approved[member].mean(), approved[~member].mean()
        p_scores.append(min(a / b, b / a))
        pos = CREDIT["repaid"] == 1
        a, b = approved[member & pos].mean(), approved[~member & pos].mean()
        eo_scores.append(min(a / b, b / a))
    assert shown["p% score (min)"] == num(min(p_scores))
    assert shown["Equal opportunity score (min)"] == num(min(eo_scores))
    figs = figures(app)
    assert len(figs) == 2  # the rates, and the ratio scores of the open section
    line = [s for s in figs[1]["layout"]["shapes"] if s.get("x0") == 0.8]
    assert line, "the 80 % rule line is drawn"
    shown = metrics(open_section(app, "rates:section", "Theil index"))
    # Theil: benefit b = prediction - label + 1; per subgroup the two-group between index vs the rest
    b = approved.astype(int) - CREDIT["repaid"] + 1
    values = []
    for group in CREDIT["ethnicity"].unique():
        member = (CREDIT["ethnicity"] == group).to_numpy()
        n1, n2, m1, m2 = member.sum(), (~member).sum(), b[member].mean(), b[~member].mean()
        mu = (n1 * m1 + n2 * m2) / (n1 + n2)
        values.append(sum(n / (n1 + n2) * (m / mu) * math.log(m / mu) for n, m in ((n1, m1), (n2, m2))))
    assert shown["Theil index (max)"] == num(max(values))
    mu = b.mean()
    terms = np.where(b > 0, (b / mu) * np.log(np.where(b > 0, b, 1) / mu), 0.0)
    assert shown["Individual Theil index"] == num(terms.mean())


def test_classwise_page_on_three_classes(app):
    widget(app, "selectbox", "Label column").set_value("repayment_status").run()
    assert widget(app, "checkbox", "Keep all classes").value is True  # more than two values
    widget(app, "selectbox", "Positive label").set_value("default").run()
    widget(app, "selectbox", "Predicted label column").set_value("predicted_status").run()
    widget(app, "multiselect", "Protected attributes").set_value(["sex"]).run()
    assert not app.exception and not app.error, [e.value for e in app.error]
    app.switch_page("pages/classwise.py").run()
    assert not app.exception and not app.error
    widget(app, "selectbox", "Class metric").set_value("recall").run()
    per_class = []
    for cls in ("default", "late", "on_time"):
        recalls = []
        for sex in ("Female", "Male"):
            rows = CREDIT[(CREDIT["sex"] == sex) & (CREDIT["repayment_status"] == cls)]
            recalls.append((rows["predicted_status"] == cls).mean())
        per_class.append(np.std(recalls))  # population standard deviation
    assert metrics(app)["Unweighted average bias"] == num(np.mean(per_class))
    assert metrics(app)["Classes used"] == "3 of 3"
    assert len(figures(app)) == 1
    # difference of two chosen subgroups, per class, then the mean
    widget(app, "selectbox", "Across subgroups").set_value("difference").run()
    widget(app, "selectbox", "First subgroup").set_value("Male").run()
    widget(app, "selectbox", "Second subgroup").set_value("Female").run()
    diffs = []
    for cls in ("default", "late", "on_time"):
        r = {sex: (CREDIT.loc[(CREDIT["sex"] == sex) & (CREDIT["repayment_status"] == cls), "predicted_status"]
                   == cls).mean() for sex in ("Female", "Male")}
        diffs.append(r["Male"] - r["Female"])
    # absolute differences by default (signed ones of opposite sign would cancel); signed on request
    assert widget(app, "radio", "Difference").value == "absolute"
    assert metrics(app)["Unweighted average bias"] == num(np.mean(np.abs(diffs)))
    assert any("shown: absolute" in c.value for c in app.caption)
    widget(app, "radio", "Difference").set_value("signed").run()
    assert metrics(app)["Unweighted average bias"] == num(np.mean(diffs))
    assert any("shown: signed" in c.value for c in app.caption)
    # binary pages still work: the positive label against the rest
    app.switch_page("pages/rate_disparities.py").run()
    assert not app.exception and not app.error


def test_classwise_page_thresholds_a_score_for_a_binary_label(app):
    widget(app, "selectbox", "Predicted label column").set_value(None).run()
    app.switch_page("pages/classwise.py").run()
    assert not app.exception and not app.error
    assert widget(app, "radio", "Predictions from").value == "score:score_logistic"
    widget(app, "selectbox", "Class metric").set_value("precision").run()
    predicted = CREDIT["score_logistic"] >= 0.5
    per_class = []
    for cls, hit in ((0, ~predicted), (1, predicted)):
        precisions = [(CREDIT.loc[hit & (CREDIT["ethnicity"] == g), "repaid"] == cls).mean()
                      for g in sorted(CREDIT["ethnicity"].unique())]
        per_class.append(np.std(precisions))
    assert metrics(app)["Unweighted average bias"] == num(np.mean(per_class))


def test_classwise_page_needs_predicted_classes_for_a_multiclass_label(app):
    widget(app, "selectbox", "Label column").set_value("repayment_status").run()
    widget(app, "selectbox", "Predicted label column").set_value(None).run()
    app.switch_page("pages/classwise.py").run()
    assert not app.exception
    assert any("Predicted label column" in i.value for i in app.info)


def test_dataset_metrics_page_matches_pandas(app):
    app.switch_page("pages/dataset_metrics.py").run()
    assert not app.exception and not app.error
    assert any("not a model" in i.value for i in app.info)
    rates = CREDIT.groupby("ethnicity")["repaid"].agg(["sum", "count"])
    diffs = [abs(rates.loc[g, "sum"] / rates.loc[g, "count"]
                 - (rates["sum"].sum() - rates.loc[g, "sum"]) / (rates["count"].sum() - rates.loc[g, "count"]))
             for g in rates.index]
    assert metrics(app)["Base-rate disparity (max)"] == num(max(diffs))
    widget(app, "selectbox", "Reference").set_value("pairwise").run()
    base = rates["sum"] / rates["count"]
    assert metrics(app)["Base-rate disparity (max)"] == num(base.max() - base.min())
    # smoothed EDF with concentration 1 (alpha = 1/2), literal pairwise loop
    s1 = (rates["sum"] + 0.5) / (rates["count"] + 1.0)
    s0 = (rates["count"] - rates["sum"] + 0.5) / (rates["count"] + 1.0)
    eps = max(abs(math.log(s[i]) - math.log(s[j])) for s in (s0, s1) for i in s.index for j in s.index)
    open_section(app, "dataset:section", "Smoothed EDF")
    assert metrics(app)["Smoothed EDF (ε)"] == num(eps)
    # consistency responds to the features and k
    open_section(app, "dataset:section", "Consistency")
    widget(app, "multiselect", "Features").set_value(["income", "debt_to_income"]).run()
    first = metrics(app)["Share of differing neighbours"]
    widget(app, "number_input", "Neighbours (k)").set_value(15).run()
    second = metrics(app)
    assert second["Share of differing neighbours"] != first
    share = float(second["Share of differing neighbours"])
    assert abs(float(second["Consistency (Zemel et al.)"]) - (1 - share)) <= 1.0001e-4  # both shown rounded


def test_sidebar_slice_restricts_every_page(app):
    widget(app, "multiselect", "Slice by").set_value(["sex"]).run()
    widget(app, "multiselect", "sex").set_value(["Female"]).run()
    assert not app.exception and not app.error
    n_female = int((CREDIT["sex"] == "Female").sum())
    assert metrics(app)["Rows in slice"] == f"{n_female:,}"
    assert any(f"{n_female:,} of 6,000 rows" in c.value for c in app.sidebar.caption)
    app.switch_page("pages/rate_disparities.py").run()
    assert not app.exception
    rates = app.dataframe[0].value.set_index("subgroup")
    assert rates["size"].sum() == n_female
    female = CREDIT[CREDIT["sex"] == "Female"]
    expected = (female["score_logistic"] >= 0.5).groupby(female["ethnicity"]).mean()
    np.testing.assert_allclose(rates.loc[expected.index, "selection_rate"], expected, rtol=0, atol=1e-12)
    assert any("slice: sex in" in c.value for c in app.caption)   # the context line
    # a numeric range on another page
    widget(app, "multiselect", "Slice by").set_value(["sex", "income"]).run()
    widget(app, "slider", "income").set_value((40.0, 80.0)).run()
    rates = app.dataframe[0].value
    keep = (CREDIT["sex"] == "Female") & CREDIT["income"].between(40.0, 80.0)
    assert rates["size"].sum() == int(keep.sum())


@pytest.mark.parametrize("intersect, expected", [(True, None), (False, 2 + 5)])
def test_sidebar_intersections_change_the_subgroups(app, intersect, expected):
    widget(app, "multiselect", "Protected attributes").set_value(["sex", "ethnicity"]).run()
    widget(app, "checkbox", "Intersect protected attributes").set_value(intersect).run()
    assert not app.exception and not app.error
    groups = app.dataframe[-2].value if "score column" in app.dataframe[-1].value.columns else app.dataframe[-1].value
    combos = CREDIT.groupby(["sex", "ethnicity"]).ngroups
    assert len(groups) == (combos if expected is None else expected)
    app.switch_page("pages/rate_disparities.py").run()
    assert len(app.dataframe[0].value) == (combos if expected is None else expected)


def test_sidebar_bins_and_minimum_size(app):
    widget(app, "multiselect", "Protected attributes").set_value(["income"]).run()
    widget(app, "number_input", "Bins for numeric attributes").set_value(6).run()
    widget(app, "number_input", "Minimum subgroup size").set_value(1001).run()
    assert not app.exception and not app.error
    app.switch_page("pages/rate_disparities.py").run()
    rates = app.dataframe[0].value
    assert len(rates) == 6  # six quantile bins of income
    assert rates["size"].sum() == 6000
    assert rates["small"].tolist() == (rates["size"] < 1001).tolist()


def test_rate_page_correlation_score_matches_numpy(app):
    open_section(app, "rates:section", "Correlation", run=False)
    app.switch_page("pages/rate_disparities.py").run()
    assert widget(app, "selectbox", "Correlate predictions with").value == "income"  # not the row id
    approved = (CREDIT["score_logistic"] >= 0.5).astype(float)
    r = np.corrcoef(approved, CREDIT["income"])[0, 1]
    assert metrics(app)["Correlation score (income)"] == num(-abs(r))
    widget(app, "selectbox", "Correlate predictions with").set_value("n_late_payments").run()
    r = np.corrcoef(approved, CREDIT["n_late_payments"])[0, 1]
    assert metrics(app)["Correlation score (n\\_late\\_payments)"] == num(-abs(r))
