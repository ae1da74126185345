"""AppTest: intervals, findings and the policy verdict on the Class-wise bias and Dataset metrics pages.

Every interval shown is checked against fairness_core called directly with the app's options (level 0.95,
1,000 resamples, seed 0), and the point values against plain pandas.
"""

import re

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from tests.app.helpers import CI, ROOT, as_shown, figures, interval, metrics, open_section, unescape, widget
from fairness_dashboard.presentation import formats

CREDIT = pd.read_csv(ROOT / "sample_data" / "credit_decisions.csv")
CLASSWISE, DATASET = "pages/classwise.py", "pages/dataset_metrics.py"


def main_elements(app) -> list:
    return list(app.main)


def findings(app) -> list[str]:
    """The bullets of the Findings panel (unescaped): the markdown right after the 'Findings' subheader."""
    main = main_elements(app)
    at = next(i for i, el in enumerate(main) if getattr(el, "type", "") == "subheader" and el.value == "Findings")
    return [unescape(line[2:]) for line in main[at + 1].value.split("\n") if line.startswith("- ")]


def caption_under(app, label: str) -> str:
    """The first caption after the st.metric labelled `label` (in its column, or on the page)."""
    for column in app.columns:
        labels = [m.label for m in column.metric]
        if label in labels and len(column.caption):
            return column.caption[0].value
    main = main_elements(app)
    at = next(i for i, el in enumerate(main) if getattr(el, "type", "") == "metric" and el.label == label)
    return next(el.value for el in main[at + 1:] if getattr(el, "type", "") == "caption")




def verdicts(app) -> list[tuple[str, str]]:
    """(status badge, sentence) of every policy badge on the page."""
    out = []
    for md in app.markdown:
        m = re.match(r":(\w+)-badge\[([\w ]+)\] (.*)", md.value)
        if m:
            out.append((m.group(2), unescape(m.group(3))))
    return out


def credit_subgroups(columns=("ethnicity",)) -> fc.Subgroups:
    return fc.Subgroups.from_attributes(CREDIT, list(columns), intersect=True, min_size=30)


# Dataset metrics -------------------------------------------------------------------------------


def test_dataset_page_shows_the_library_intervals_and_findings(app):
    app.switch_page(DATASET).run()
    assert not app.exception and not app.error
    y = CREDIT["repaid"].to_numpy()
    sub = credit_subgroups()
    parity = fc.dataset_statistical_parity(y, sub, reduction="max", ci=0.95, n_boot=1000, random_state=0)
    # the point value from pandas: the largest |base rate - base rate of the rest|
    rates = CREDIT.groupby("ethnicity")["repaid"].agg(["sum", "count"])
    rest = (rates["sum"].sum() - rates["sum"]) / (rates["count"].sum() - rates["count"])
    diffs = (rates["sum"] / rates["count"] - rest).abs()
    assert metrics(app)["Base-rate disparity (max)"] == f"{formats.tile(diffs.max())}" == f"{formats.tile(parity.value)}"
    caption = unescape(caption_under(app, "Base-rate disparity (max)"))
    assert caption.startswith(f"{diffs.idxmax()} vs rest ({int(rates.loc[diffs.idxmax(), 'count']):,} rows)")
    assert interval(caption) == (0.95, as_shown(parity.ci_low), as_shown(parity.ci_high))
    # findings: the subgroup that drives the max, in words, with its interval
    bullets = findings(app)
    assert bullets and diffs.idxmax() in bullets[0] and "base rate" in bullets[0] and "95 % interval" in bullets[0]
    # the base-rate chart has error bars and the tables interval columns
    bars = [t for t in figures(app)[0]["data"] if t["type"] == "bar"]
    assert bars and all("array" in t.get("error_x", {}) for t in bars)
    tables = [df.value for df in app.dataframe]
    assert {"base_rate_ci_low", "base_rate_ci_high"} <= set(tables[0].columns)
    assert {"disparity_ci_low", "disparity_ci_high", "excludes_parity"} <= set(tables[1].columns)
    # the smoothed EDF tile, in its section
    open_section(app, "dataset:section", "Smoothed EDF")
    edf = fc.smoothed_edf(y, sub, ci=0.95, n_boot=1000, random_state=0)
    assert metrics(app)["Smoothed EDF (ε)"] == f"{formats.tile(edf.value)}"
    edf_caption = caption_under(app, "Smoothed EDF (ε)")
    assert interval(edf_caption) == (0.95, as_shown(edf.ci_low), as_shown(edf.ci_high))
    assert {"smoothed_positive_rate_ci_low", "smoothed_negative_rate_ci_high"} <= set(app.dataframe[0].value.columns)


@pytest.mark.parametrize("status", ["fail", "inconclusive", "pass"])
def test_dataset_page_verdict_for_a_user_bound(app, status):
    app.switch_page(DATASET).run()
    parity = fc.dataset_statistical_parity(CREDIT["repaid"], credit_subgroups(), reduction="max", ci=0.95,
                                           n_boot=1000, random_state=0)
    bound = {"fail": parity.ci_low - 0.01, "inconclusive": (parity.ci_low + parity.ci_high) / 2,
             "pass": parity.ci_high + 0.01}[status]
    widget(app, "number_input", "Maximum difference").set_value(round(bound, 3)).run()
    assert not app.exception
    shown = verdicts(app)
    assert len(shown) == 1
    badge, sentence = shown[0]
    assert badge == {"fail": "Fail", "inconclusive": "Inconclusive", "pass": "Pass"}[status]
    assert sentence.startswith("Base rate disparity of the labels (difference)")
    assert f"{parity.ci_low:.3g}–{parity.ci_high:.3g}" in sentence


def test_dataset_page_ratio_uses_the_band_and_never_a_difference_bound(app):
    app.switch_page(DATASET).run()
    widget(app, "selectbox", "Distance").set_value("ratio").run()
    assert not app.exception and not app.error
    assert not [w for w in app.number_input if w.label == "Maximum difference"]
    ratio = fc.dataset_statistical_parity(CREDIT["repaid"], credit_subgroups(), distance_measure="ratio",
                                          reduction="max", ci=0.95, n_boot=1000, random_state=0)
    expected = fc.evaluate_result(fc.Rule.ratio_within("dataset_statistical_parity"), ratio)
    (badge, sentence), = verdicts(app)
    assert badge.lower() == expected.status and "(ratio)" in sentence and "1.25" in sentence


def test_dataset_page_without_intervals(app):
    widget(app, "checkbox", "Show intervals").set_value(False).run()
    app.switch_page(DATASET).run()
    assert not app.exception and not app.error
    assert not any(CI.search(c.value) for c in app.caption)
    assert all(not c.endswith(("_ci_low", "_ci_high")) for df in app.dataframe for c in df.value.columns)
    (_, sentence), = verdicts(app)
    assert "no interval was available" in sentence
    assert findings(app)  # the findings still name the largest disparity
    open_section(app, "dataset:section", "Smoothed EDF")  # ... and the smoothed EDF has no interval either
    assert len(app.dataframe) == 1
    assert not any(CI.search(c.value) for c in app.caption)
    assert all(not c.endswith(("_ci_low", "_ci_high")) for df in app.dataframe for c in df.value.columns)


# Class-wise bias -------------------------------------------------------------------------------


def test_classwise_page_binary_shows_the_library_intervals_and_findings(app):
    app.switch_page(CLASSWISE).run()
    assert not app.exception and not app.error
    assert widget(app, "radio", "Predictions from").value == "score:score_logistic"
    truth = CREDIT["repaid"].astype(str)
    predicted = (CREDIT["score_logistic"] >= 0.5).astype(int).astype(str)
    result = fc.unweighted_average_bias(truth, predicted, credit_subgroups(), ci=0.95, n_boot=1000, random_state=0)
    # the point value from pandas: per class the population std over subgroups of the F-score, then the mean
    per_class = []
    for cls in ("0", "1"):
        scores = []
        for _, rows in CREDIT.groupby("ethnicity"):
            t, p = rows["repaid"].astype(str), (rows["score_logistic"] >= 0.5).astype(int).astype(str)
            tp = ((t == cls) & (p == cls)).sum()
            scores.append(2 * tp / ((t == cls).sum() + (p == cls).sum()))
        per_class.append(np.std(scores))
    assert metrics(app)["Unweighted average bias"] == f"{formats.tile(np.mean(per_class))}"
    caption = unescape(caption_under(app, "Unweighted average bias"))
    assert interval(caption) == (0.95, as_shown(result.ci_low), as_shown(result.ci_high))
    top = ["0", "1"][int(np.argmax(per_class))]
    assert f"Largest: class {top} {formats.num(max(per_class))}" in caption
    bullets = findings(app)
    assert bullets[0].startswith(f"Class {top}: the F-score varies across")
    assert bullets[0] == fc.classwise_findings(result)[0]
    bars = [t for t in figures(app)[0]["data"] if t["type"] == "bar"]
    assert bars and all("array" in t.get("error_y", {}) for t in bars)
    per_class_table, table = app.dataframe[0].value, app.dataframe[1].value
    assert {"value_ci_low", "value_ci_high", "n_boot_undefined"} <= set(per_class_table.columns)
    assert {"recall_ci_low", "precision_ci_high", "fscore_ci_low", "small_reason"} <= set(table.columns)


def test_classwise_page_three_classes_with_and_without_intervals(app):
    widget(app, "selectbox", "Label column").set_value("repayment_status").run()
    widget(app, "selectbox", "Positive label").set_value("default").run()
    widget(app, "selectbox", "Predicted label column").set_value("predicted_status").run()
    widget(app, "multiselect", "Protected attributes").set_value(["sex"]).run()
    app.switch_page(CLASSWISE).run()
    assert not app.exception and not app.error
    result = fc.unweighted_average_bias(CREDIT["repayment_status"], CREDIT["predicted_status"],
                                        credit_subgroups(["sex"]), ci=0.95, n_boot=1000, random_state=0)
    assert interval(caption_under(app, "Unweighted average bias"))[1:] == (as_shown(result.ci_low),
                                                                                as_shown(result.ci_high))
    assert findings(app) == fc.classwise_findings(result)
    # difference of two subgroups: a signed interval, and the findings say whether it excludes parity
    widget(app, "selectbox", "Across subgroups").set_value("difference").run()
    widget(app, "selectbox", "First subgroup").set_value("Male").run()
    widget(app, "selectbox", "Second subgroup").set_value("Female").run()
    assert not app.exception and not app.error
    bullets = findings(app)
    # absolute by default: "differ by", with the parity statement of the signed difference's interval
    assert bullets[0].startswith("Class ") and " of Male and that of Female differ by " in bullets[0]
    assert any(p in bullets[0] for p in ("not distinguishable from parity", "the interval excludes 0"))
    widget(app, "radio", "Difference").set_value("signed").run()
    bullets = findings(app)
    assert bullets[0].startswith("Class ") and " of Male minus that of Female is " in bullets[0]
    assert any(p in bullets[0] for p in ("not distinguishable from parity", "the interval excludes 0"))
    widget(app, "checkbox", "Show intervals").set_value(False).run()
    assert not app.exception and not app.error
    assert not any(CI.search(c.value) for c in app.caption)
    assert not any(t.get("error_y") for t in figures(app)[0]["data"] if t["type"] == "bar")
    assert "value_ci_low" not in app.dataframe[0].value.columns


# Both samples ----------------------------------------------------------------------------------


@pytest.mark.parametrize("sample", ["credit", "moderation"])
def test_both_pages_show_findings_and_interval_captions_on_each_sample(app, sample):
    app.switch_page("pages/data.py").run()
    widget(app, "radio", "Source").set_value(sample).run()
    assert not app.exception
    for page, tile in ((CLASSWISE, "Unweighted average bias"), (DATASET, "Base-rate disparity (max)")):
        app.switch_page(page).run()
        assert not app.exception, (sample, page, app.exception)
        assert not app.error, (sample, page, [e.value for e in app.error])
        assert findings(app), (sample, page)
        level, low, high = interval(caption_under(app, tile))
        assert level == 0.95 and low <= float(metrics(app)[tile]) <= high
    open_section(app, "dataset:section", "Smoothed EDF")
    if sample == "moderation":  # overlapping identity columns: no EDF, and the page says why
        assert any("disjoint subgroups" in unescape(i.value) for i in app.info)
    else:
        level, low, high = interval(caption_under(app, "Smoothed EDF (ε)"))
        assert low <= float(metrics(app)["Smoothed EDF (ε)"]) <= high
