"""AppTest: class-wise bias, consistency and per-subgroup thresholds in the review equal what the pages show, are
restored from a configuration and a link; per-model threshold boxes in the comparison; the explorer's order."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

import fairness_core as fc
from tests.app.helpers import ROOT, figures, metrics, open_section, start, widget
from tests.app.review_helpers import downloads, prepare, restore  # noqa: F401
from fairness_dashboard.presentation import escape, formats, labels
from fairness_dashboard.settings import review_url as ui_review

CREDIT = pd.read_csv(ROOT / "sample_data" / "credit_decisions.csv")
RATES = "pages/rate_disparities.py"
OWN = {"Group A": 0.6, "Group C": 0.42}


def exported_table(review_json: dict, name: str) -> pd.DataFrame:
    """A table of the review's JSON export as a DataFrame."""
    return fc.table_from_json(json.dumps(review_json["tables"][name] | {"context": {}}))[0]


def same_rows(shown: pd.DataFrame, expected: pd.DataFrame, keys: list) -> None:
    """The page's table equals the review's on the page's columns, rows matched by `keys` (exact floats)."""
    a = shown.sort_values(keys).reset_index(drop=True)
    b = expected.sort_values(keys).reset_index(drop=True)[list(shown.columns)]
    pd.testing.assert_frame_equal(a, b, check_dtype=False, rtol=0, atol=0)


def saved(app, downloads) -> tuple[fc.ReviewConfig, dict]:
    """(the configuration, the review's JSON) downloaded from the Overview."""
    prepare(app)
    return (fc.ReviewConfig.from_json(downloads.ending("review-config.json").decode()),
            json.loads(downloads.ending("review.json")))


def test_classwise_and_consistency_in_the_review_equal_the_pages(app, downloads):
    widget(app, "checkbox", labels.SHOW_INTERVALS).set_value(False).run()
    widget(app, "selectbox", "Label column").set_value("repayment_status").run()
    widget(app, "selectbox", "Positive label").set_value("default").run()
    widget(app, "selectbox", "Predicted label column").set_value("predicted_status").run()
    widget(app, "multiselect", "Protected attributes").set_value(["sex"]).run()
    app.switch_page("pages/classwise.py").run()
    widget(app, "selectbox", "Class metric").set_value("recall").run()
    widget(app, "selectbox", "Across subgroups").set_value("difference").run()
    widget(app, "selectbox", "First subgroup").set_value("Female").run()  # not the default (largest first)
    widget(app, "selectbox", "Second subgroup").set_value("Male").run()
    assert not app.exception and not app.error
    shown_value = metrics(app)["Unweighted average bias"]
    per_class = next(d.value for d in app.dataframe if "n_subgroups" in d.value.columns)
    by_class = next(d.value for d in app.dataframe if "n_true" in d.value.columns)

    config, exported = saved(app, downloads)
    assert (config.classwise_metric, config.classwise_reduction) == ("recall", "absolute_difference")
    assert config.classwise_subgroups == ("Female", "Male") and config.consistency_features == ()
    assert exported["dataset"]["consistency"] is None  # the Dataset metrics page has not computed it
    model = next(m for m in exported["models"] if m["name"] == "predicted_status")
    assert formats.tile(model["headline"]["unweighted_average_bias"]) == shown_value
    same_rows(per_class, exported_table(exported, "predicted_status.classwise_per_class"), ["class"])
    same_rows(by_class, exported_table(exported, "predicted_status.classwise"), ["subgroup", "class"])
    review = fc.build_review(CREDIT, config)  # the same numbers from the configuration alone
    same_rows(per_class, review.tables()["predicted_status.classwise_per_class"], ["class"])
    fresh = start()  # restored from the configuration: the page's options and numbers
    restore(fresh, "review-config.json", config.to_json().encode())
    fresh.switch_page("pages/classwise.py").run()
    assert not fresh.exception and not fresh.error
    assert widget(fresh, "selectbox", "Class metric").value == "recall"
    assert [widget(fresh, "selectbox", f"{k} subgroup").value for k in ("First", "Second")] == ["Female", "Male"]
    assert widget(fresh, "radio", "Difference").value == "absolute"
    assert metrics(fresh)["Unweighted average bias"] == shown_value

    # Consistency, once the Dataset metrics page has computed it (6,000 rows: at once, every row).
    app.switch_page("pages/dataset_metrics.py").run()
    open_section(app, "dataset:section", "Consistency")
    shown = metrics(app)["Share of differing neighbours"]
    features = widget(app, "multiselect", "Features").value
    config, exported = saved(app, downloads)
    assert config.consistency_features == tuple(features) and config.consistency_neighbors == 5
    assert config.consistency_sample == 20_000  # the app's sample; every one of 6,000 rows is counted
    table = exported_table(exported, "consistency")
    assert formats.tile(exported["dataset"]["consistency"]) == shown and table["n_sampled"].iloc[0] == 6000
    expected = fc.consistency(CREDIT[features], (CREDIT["repayment_status"] == "default").to_numpy(), n_neighbors=5)
    assert exported["dataset"]["consistency"] == expected.value


def test_per_subgroup_thresholds_in_the_review_a_restore_and_a_link(app, downloads):
    widget(app, "checkbox", labels.SHOW_INTERVALS).set_value(False).run()
    open_section(app, "rates:section", "Threshold explorer", run=False)
    app.switch_page(RATES).run()
    widget(app, "number_input", "Decision threshold").set_value(0.55).run()
    widget(app, "toggle", "Per-subgroup thresholds").set_value(True).run()
    for name, t in OWN.items():
        widget(app, "number_input", name).set_value(t).run()
    assert not app.exception
    shown = next(d.value for d in app.dataframe if "accuracy_own" in d.value.columns)

    config, exported = saved(app, downloads)
    assert config.subgroup_thresholds == (("score_logistic", tuple(OWN.items())),)
    expected = exported_table(exported, "score_logistic.subgroup_thresholds")
    written = dict(zip(expected["subgroup"], ("" if np.isnan(t) else f"{t:g}" for t in expected["threshold"])))
    assert dict(zip(shown["subgroup"], shown["threshold"])) == written
    same_rows(shown.drop(columns="threshold"), expected, ["subgroup"])
    review = fc.build_review(CREDIT, config)
    same_rows(shown.drop(columns="threshold"), review.models[0].subgroup_thresholds.table, ["subgroup"])
    assert "score_boosting.subgroup_thresholds" not in exported["tables"]
    param = app.query_params["review"]
    param = param[0] if isinstance(param, list) else param
    assert ui_review.decode(param).subgroup_thresholds == config.subgroup_thresholds

    def own_boxes(at) -> dict:
        return {w.label: w.value for w in at.number_input if w.label in CREDIT["ethnicity"].unique()}

    expected_boxes = dict.fromkeys(CREDIT["ethnicity"].unique(), 0.55) | OWN
    fresh = start()  # restored from the configuration
    restore(fresh, "review-config.json", config.to_json().encode())
    assert not fresh.exception and not fresh.error
    open_section(fresh, "rates:section", "Threshold explorer", run=False)
    fresh.switch_page(RATES).run()
    assert widget(fresh, "toggle", "Per-subgroup thresholds").value is True
    assert own_boxes(fresh) == expected_boxes
    pd.testing.assert_frame_equal(next(d.value for d in fresh.dataframe if "accuracy_own" in d.value.columns), shown)

    link = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)  # reopened from the link (the sample)
    link.query_params["review"] = param
    link.run()
    open_section(link, "rates:section", "Threshold explorer", run=False)
    link.switch_page(RATES).run()
    assert not link.exception
    assert own_boxes(link) == expected_boxes


def test_each_model_has_a_threshold_box_in_the_comparison(app):
    open_section(app, "rates:section", "Compare models", run=False)
    app.switch_page(RATES).run()
    widget(app, "toggle", "Compare models").set_value(True).run()

    def box(score: str):
        return widget(app, "number_input", f"Threshold of {escape.md(score)}")

    def top():
        return widget(app, "number_input", labels.THRESHOLD)

    def side() -> list:
        table = next(d.value for d in app.dataframe if d.value.index.name == "Quantity")
        return list(table.loc["Decision threshold"])

    assert box("score_logistic").value == top().value == 0.5 and box("score_boosting").value == 0.5
    box("score_boosting").set_value(0.7).run()
    assert top().value == 0.5 and side() == [">= 0.5", ">= 0.7"]  # another model's box: this model unchanged
    box("score_logistic").set_value(0.4).run()
    assert top().value == 0.4 and box("score_boosting").value == 0.7 and side() == [">= 0.4", ">= 0.7"]
    top().set_value(0.45).run()  # the page's box moves the current model's box in the comparison
    assert box("score_logistic").value == 0.45 and box("score_boosting").value == 0.7
    widget(app, "selectbox", labels.MODEL).set_value("score_boosting").run()
    assert top().value == 0.7 and box("score_logistic").value == 0.45 and side() == [">= 0.45", ">= 0.7"]
    assert not app.exception


def test_explorer_legend_follows_the_page_order(app):
    app.switch_page(RATES).run()
    names = set(CREDIT["ethnicity"])

    def legend() -> list:
        chart = next(f for f in figures(app) if "across thresholds" in f["layout"]["title"]["text"])
        return [t["name"] for t in chart["data"] if t.get("name") in names | {"All rows"} and t.get("xaxis", "x") == "x"]

    rates = app.dataframe[0].value  # the rates table (Tables, open first), in the page's order (worst first)
    assert list(rates["subgroup"]) != sorted(names)  # the case where the orders differ
    open_section(app, "rates:section", "Threshold explorer")
    assert legend() == [*rates["subgroup"], "All rows"]
    widget(app, "radio", labels.ORDER_SUBGROUPS).set_value("name").run()
    assert legend() == [*sorted(names), "All rows"]
