"""AppTest on real data: COMPAS uploaded through the Data page reproduces ProPublica's error rates."""

from tests.app.helpers import metrics, widget


def upload(app, path):
    widget(app, "radio", "Source").set_value("upload").run()
    app.file_uploader[0].set_value((path.name, path.read_bytes(), "text/csv")).run()
    assert not app.exception


def test_compas_rates_match_propublica(app, compas_csv):
    upload(app, compas_csv)
    widget(app, "selectbox", "Label column").set_value("two_year_recid").run()
    widget(app, "selectbox", "Positive label").set_value(1).run()
    widget(app, "multiselect", "Score column").set_value(["decile_score"]).run()
    widget(app, "multiselect", "Protected attributes").set_value(["race"]).run()
    assert not app.exception and not app.error
    assert metrics(app)["Rows used"] == "7,214"

    app.switch_page("pages/rate_disparities.py").run()
    widget(app, "number_input", "Decision threshold").set_value(5.0).run()
    assert not app.exception
    rates = app.dataframe[0].value.set_index("subgroup")
    assert round(rates.loc["African-American", "false_positive_rate"], 4) == 0.4485
    assert round(rates.loc["Caucasian", "false_positive_rate"], 4) == 0.2345
    assert round(rates.loc["African-American", "false_negative_rate"], 4) == 0.2799
    assert round(rates.loc["Caucasian", "false_negative_rate"], 4) == 0.4772
    assert rates.loc["Native American", "small"]  # 18 rows

    # a 1-10 risk score is not a probability: the calibration page says so, without a traceback
    app.switch_page("pages/calibration.py").run()
    assert not app.exception
    assert any("[0, 1]" in w.value for w in app.warning)


def test_hostile_names_are_shown_as_text(app):
    rows = ["y,<b>score</b>,group"] + [f"{i % 2},{(i % 7) / 7:.3f},**g{i % 3}**" for i in range(300)]
    widget(app, "radio", "Source").set_value("upload").run()
    app.file_uploader[0].set_value(("<img src=x>.csv", "\n".join(rows).encode(), "text/csv")).run()
    widget(app, "multiselect", "Score column").set_value(["<b>score</b>"]).run()
    widget(app, "multiselect", "Protected attributes").set_value(["group"]).run()
    assert not app.exception and not app.error
    assert any(c.value.startswith(r"\<img src=x\>\.csv: 300 rows") for c in app.caption)
    assert app.caption[0].value.startswith(r"\<img src=x\>\.csv · model \<b\>score\</b\>")  # the context line
    assert list(app.dataframe[0].value["subgroup"]) == ["**g0**", "**g1**", "**g2**"]
    app.switch_page("pages/rate_disparities.py").run()
    assert not app.exception
    assert any(r"\<b\>score\</b\> ranges from 0 to 0\.857" in c.value for c in app.caption)
