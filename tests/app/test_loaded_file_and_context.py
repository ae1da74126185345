"""AppTest: the Data page shows the loaded file (name, size, a button to replace it) when it is shown
again, and every page starts with one line naming the dataset, model and slice."""

import pandas as pd

from tests.app.helpers import PAGES, csv_bytes, scored_table, widget
from fairness_dashboard.presentation import labels

FRAME = scored_table(400)
PAYLOAD = csv_bytes(FRAME)


def upload(app, name: str, payload: bytes):
    widget(app, "radio", "Source").set_value("upload").run()
    app.file_uploader[0].set_value((name, payload, "text/csv")).run()
    assert not app.exception, app.exception


def captions(app) -> list[str]:
    return [c.value for c in app.caption]


def test_returning_to_data_shows_the_loaded_file_and_a_replace_button(app):
    upload(app, "scores_<v2>.csv", PAYLOAD)
    expected = rf"scores\_\<v2\>\.csv: 400 rows, {FRAME.shape[1]} columns, {len(PAYLOAD) / 1e3:.1f} KB"
    assert expected in captions(app)
    assert not app.file_uploader  # the loaded file is named, not an empty uploader
    app.switch_page("pages/overview.py").run()
    app.switch_page("pages/data.py").run()
    assert not app.exception
    assert expected in captions(app)
    assert [b.label for b in app.button] == ["Replace file"]
    assert app.metric[0].label == "Rows in file" and app.metric[0].value == "400"

    # Replace: the uploader comes back, the current file stays until another loads
    app.button[0].click().run()
    assert len(app.file_uploader) == 1
    assert [b.label for b in app.button] == [r"Keep scores\_\<v2\>\.csv"]
    assert app.metric[0].value == "400"
    smaller = csv_bytes(FRAME.head(300))
    app.file_uploader[0].set_value(("smaller.csv", smaller, "text/csv")).run()
    assert not app.exception
    assert rf"smaller\.csv: 300 rows, {FRAME.shape[1]} columns, {len(smaller) / 1e3:.1f} KB" in captions(app)
    assert [b.label for b in app.button] == ["Replace file"] and not app.file_uploader


def test_keep_returns_to_the_loaded_file(app):
    upload(app, "scores.csv", PAYLOAD)
    app.button[0].click().run()  # Replace file
    app.button[0].click().run()  # Keep scores.csv
    assert [b.label for b in app.button] == ["Replace file"] and not app.file_uploader


def test_a_sample_shows_its_file_size(app):
    line = next(c for c in captions(app) if c.startswith("Sample: credit decisions: "))
    assert line.startswith("Sample: credit decisions: 6,000 rows, ") and line.endswith(" KB")


def test_every_page_names_dataset_model_and_slice(app):
    upload(app, "scores.csv", PAYLOAD)
    widget(app, "multiselect", labels.SCORE_COLUMN).set_value(["score_a", "score_b"]).run()
    widget(app, "selectbox", labels.MODEL).set_value("score_b").run()
    for page in PAGES:
        app.switch_page(page).run()
        assert not app.exception, (page, app.exception)
        first = app.caption[0].value if app.caption else ""
        if page == "pages/definitions.py":  # content only, no data
            assert "slice:" not in first
        else:
            assert first == r"scores\.csv · model score\_b · slice: all 400 rows", (page, first)

    app.switch_page("pages/rate_disparities.py").run()
    widget(app, "multiselect", labels.SLICE_BY).set_value(["sex"]).run()
    widget(app, "multiselect", "sex").set_value(["Female"]).run()
    n_female = int((FRAME["sex"] == "Female").sum())
    assert app.caption[0].value == (r"scores\.csv · model score\_b · slice: sex in \{Female\} "
                                    f"({n_female:,} of 400 rows)")


def test_context_line_without_a_score_column(app):
    frame = pd.DataFrame({"label": [0, 1] * 50, "decision": [1, 0, 0, 1] * 25, "group": ["a", "b", "c", "d"] * 25})
    upload(app, "decisions.csv", csv_bytes(frame))
    widget(app, "multiselect", labels.SCORE_COLUMN).set_value([]).run()
    widget(app, "selectbox", labels.PREDICTED_COLUMN).set_value("decision").run()
    widget(app, "multiselect", labels.PROTECTED).set_value(["group"]).run()
    assert app.caption[0].value == r"decisions\.csv · no score column mapped · slice: all 100 rows"
