"""AppTest: every page runs with data, and every control changes the numbers it should."""

import numpy as np
import pandas as pd
import pytest

from tests.app.helpers import CHARTS, PAGES, ROOT, each_section, figures, metrics, section_titles, widget


def test_every_page_runs_on_each_sample(app):
    for sample in ["Sample: credit decisions", "Sample: text moderation"]:
        app.switch_page("pages/data.py").run()
        widget(app, "radio", "Source").set_value(
            {"Sample: credit decisions": "credit", "Sample: text moderation": "moderation"}[sample]).run()
        assert not app.exception
        for page in PAGES:
            app.switch_page(page).run()
            for section in each_section(app, page):
                assert not app.exception, (sample, page, section, app.exception)
                assert not app.error, (sample, page, section, [e.value for e in app.error])
                if section is None or section == section_titles(app)[0]:
                    expected = CHARTS[page] if isinstance(CHARTS[page], int) else CHARTS[page][sample]
                    assert len(figures(app)) == expected, (sample, page)


def test_data_page_summarises_the_credit_sample(app):
    shown = metrics(app)
    assert shown["Rows in file"] == "6,000"
    assert shown["Rows used"] == "6,000"
    assert shown["Rows excluded"] == "0"
    groups = app.dataframe[0].value
    assert list(groups["subgroup"]) == sorted(groups["subgroup"])  # ethnicity values, sorted
    assert groups["size"].sum() == 6000
    assert bool(groups.loc[groups["size"] < 30, "small"].all())


def test_power_mean_p_and_weight_change_the_score(app):
    app.switch_page("pages/subgroup_aucs.py").run()
    before = metrics(app)
    widget(app, "number_input", "Power mean p").set_value(1.0).run()
    after_p = metrics(app)
    assert after_p["Bias AUC score"] != before["Bias AUC score"]
    assert after_p["Overall AUC"] == before["Overall AUC"]  # p is applied after aggregation only
    widget(app, "slider", "Overall AUC weight").set_value(1.0).run()
    # with all weight on the overall AUC, the score is the overall AUC
    assert metrics(app)["Bias AUC score"] == metrics(app)["Overall AUC"]


def test_threshold_distance_and_reduction_change_rate_disparities(app):
    app.switch_page("pages/rate_disparities.py").run()
    label = "False positive rate disparity (max)"
    base = metrics(app)[label]
    widget(app, "radio", "Predictions from").set_value("score:score_logistic").run()
    widget(app, "number_input", "Decision threshold").set_value(0.7).run()
    at_07 = metrics(app)[label]
    assert at_07 != base
    widget(app, "selectbox", "Distance").set_value("ratio").run()
    ratio = metrics(app)[label]
    assert ratio != at_07 and float(ratio) >= 1.0
    widget(app, "selectbox", "Reduction").set_value("mean").run()
    assert metrics(app)["False positive rate disparity (mean)"] != ratio
    # the threshold survives a page switch
    app.switch_page("pages/data.py").run()
    app.switch_page("pages/rate_disparities.py").run()
    assert widget(app, "number_input", "Decision threshold").value == pytest.approx(0.7)


def test_named_reference_and_pairwise(app):
    app.switch_page("pages/rate_disparities.py").run()
    widget(app, "selectbox", "Reference").set_value("pairwise").run()
    assert not app.exception
    comparisons = app.dataframe[1].value
    k = len(app.dataframe[0].value)
    assert len(comparisons) == k * (k - 1) // 2
    # the caption names the reference with its own words: no "compared with the every other subgroup"
    captions = [c.value for c in app.caption]
    assert any("Each subgroup is compared with every other subgroup (pairwise); distance: " in c for c in captions)
    assert not any("the every other" in c for c in captions)
    widget(app, "selectbox", "Reference").set_value("named").run()
    widget(app, "selectbox", "Reference subgroup").set_value("Group A").run()
    comparisons = app.dataframe[1].value
    assert set(comparisons["reference"]) == {"Group A"} and "Group A" not in set(comparisons["subgroup"])


def test_number_of_bins_and_strategy_change_calibration(app):
    app.switch_page("pages/calibration.py").run()
    label = "ECE disparity (max)"
    base = metrics(app)[label]
    fig = figures(app)[0]
    assert fig["data"][0]["name"] == "Perfectly calibrated"
    widget(app, "slider", "Number of bins").set_value(4).run()
    assert metrics(app)[label] != base
    curve = figures(app)[0]["data"][1]
    assert len(curve["x"]) <= 4
    widget(app, "selectbox", "Binning strategy").set_value("quantile").run()
    assert not app.exception
    errors = app.dataframe[0].value
    assert np.all((errors["ece"].dropna() >= 0) & (errors["ece"].dropna() <= 1))


def test_bad_mapping_shows_a_message_not_a_traceback(app):
    widget(app, "multiselect", "Protected attributes").set_value([]).run()
    assert not app.exception
    assert any("protected attribute" in e.value for e in app.error)
    app.switch_page("pages/subgroup_aucs.py").run()
    assert not app.exception
    assert any("Data" in i.value for i in app.info)


def test_predicted_labels_alone_drive_the_rate_page(app):
    widget(app, "multiselect", "Score column").set_value([]).run()
    assert not app.exception and not app.error
    app.switch_page("pages/subgroup_aucs.py").run()
    assert any("needs a score column" in i.value for i in app.info)
    app.switch_page("pages/rate_disparities.py").run()
    assert not app.exception
    assert widget(app, "radio", "Predictions from").value == "given"
    rates = app.dataframe[0].value.set_index("subgroup")
    # the given `approved` column of the credit sample, by ethnicity, computed with pandas
    frame = pd.read_csv(ROOT / "sample_data" / "credit_decisions.csv")
    expected = frame.groupby("ethnicity")["approved"].mean()
    np.testing.assert_allclose(rates.loc[expected.index, "selection_rate"], expected, rtol=0, atol=1e-12)
