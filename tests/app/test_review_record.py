"""The review's record in the app: its configuration from the session, the exports, restoring, and the URL."""

from __future__ import annotations

import csv
import io
import json
import zipfile

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

import fairness_core as fc
from tests.app.helpers import ROOT, csv_bytes, scored_table, start, widget
from tests.app.review_helpers import downloads, fpr_table, map_compas, prepare, restore, sha256, upload  # noqa: F401
from fairness_dashboard.settings import review_restore, review_url

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _compas_session(app, compas_csv):
    """COMPAS mapped, threshold 5, the rates compared with the whole population, p = -3, subgroups by name."""
    map_compas(app, compas_csv)
    widget(app, "radio", "Order subgroups").set_value("name").run()
    app.switch_page("pages/subgroup_aucs.py").run()
    widget(app, "number_input", "Power mean p").set_value(-3.0).run()
    app.switch_page("pages/rate_disparities.py").run()
    widget(app, "number_input", "Decision threshold").set_value(5.0).run()
    widget(app, "selectbox", "Reference").set_value("overall").run()
    assert not app.exception


def test_exports_hold_the_numbers_the_pages_show(app, compas_csv, downloads):
    _compas_session(app, compas_csv)
    shown = fpr_table(app)
    rates = app.dataframe[0].value.set_index("subgroup")
    np.testing.assert_array_equal(shown["subgroup_value"], rates.loc[shown["subgroup"], "false_positive_rate"])
    prepare(app)

    config = fc.ReviewConfig.from_json(downloads.ending("review-config.json").decode())
    assert config.mapping.label == "two_year_recid" and config.mapping.scores == ("decile_score",)
    assert config.mapping.protected == ("race",) and config.mapping.positive_label == 1
    assert config.thresholds == (("decile_score", 5.0),)
    assert config.auc_p == -3.0 and config.rate_reference == "overall" and config.rate_metrics == ("false_positive_rate", "false_negative_rate")
    view = dict(config.view)
    assert view["subgroups:order"] == "name" and view["model"] == "decile_score"
    assert view["source"] == {"name": compas_csv.name, "sha256": sha256(compas_csv)}

    # The review built from the session's configuration has the page's numbers.
    frame = fc.read_table(compas_csv)
    expected = fc.build_review(frame, config, source={"name": compas_csv.name})
    table = expected.models[0].rates["false_positive_rate"].table.sort_values("subgroup").reset_index(drop=True)
    pd.testing.assert_frame_equal(shown, table, check_dtype=False)
    assert round(table.set_index("subgroup").loc["African-American", "subgroup_value"], 4) == 0.4485

    # The review's JSON equals fairness_core's results for the same configuration, to 1e-12.
    exported = json.loads(downloads.ending("review.json"))
    assert exported["context"]["configuration"] == config.to_dict()
    assert exported["context"]["source"]["sha256"] == sha256(compas_csv)
    assert set(exported["tables"]) == set(expected.tables())
    for name, frame_ in expected.tables().items():
        stored = exported["tables"][name]
        assert stored["columns"] == [str(c) for c in frame_.columns], name
        for j, column in enumerate(frame_.columns):
            if pd.api.types.is_float_dtype(frame_[column]):
                back = np.array([np.nan if r[j] is None else float(r[j]) for r in stored["rows"]])
                np.testing.assert_allclose(back, frame_[column].to_numpy(dtype=float), rtol=1e-12, atol=0,
                                           equal_nan=True, err_msg=f"{name}.{column}")
    assert exported["models"][0]["headline"]["false_positive_rate"] == expected.models[0].rates[
        "false_positive_rate"].value

    # Every table as CSV in the ZIP, with its context in the header and its model in the name.
    with zipfile.ZipFile(io.BytesIO(downloads.ending("tables.zip"))) as archive:
        names = archive.namelist()
        fpr = archive.read("compas-scores-two-years_decile_score_false_positive_rate.csv").decode()
    assert len(names) == len(expected.tables())
    assert "# threshold: 5.0" in fpr and "# model: \"decile_score\"" in fpr
    back = pd.read_csv(io.StringIO(fpr), comment="#").sort_values("subgroup").reset_index(drop=True)
    np.testing.assert_allclose(back["subgroup_value"], table["subgroup_value"], rtol=1e-15)

    html = downloads.ending("review.html").decode()
    assert review_restore.read_config(html.encode()) == config  # the report carries the configuration


def test_restore_a_saved_configuration(app, compas_csv, downloads):
    _compas_session(app, compas_csv)
    shown = fpr_table(app)
    app.switch_page("pages/overview.py").run()
    saved = downloads.ending("review-config.json")

    fresh = start()
    upload(fresh, compas_csv.name, compas_csv.read_bytes())  # the first guess maps other columns
    restore(fresh, "review-config.json", saved)
    assert not fresh.exception and not fresh.error
    assert [t.value for t in fresh.toast] == ["Restored the review's settings."]
    assert widget(fresh, "selectbox", "Label column").value == "two_year_recid"
    assert widget(fresh, "multiselect", "Protected attributes").value == ["race"]
    pd.testing.assert_frame_equal(fpr_table(fresh), shown)
    assert widget(fresh, "number_input", "Decision threshold").value == 5.0
    assert widget(fresh, "selectbox", "Reference").value == "overall"
    assert widget(fresh, "radio", "Order subgroups").value == "name"


def test_restore_explains_what_does_not_fit(app, compas_csv, downloads):
    _compas_session(app, compas_csv)
    app.switch_page("pages/overview.py").run()
    saved = downloads.ending("review-config.json")

    fresh = start()  # the credit sample: none of COMPAS's columns
    restore(fresh, "review-config.json", saved)
    assert not fresh.exception and not fresh.error
    # it waits for its data (tests/app/test_restore_before_data.py), saying which file and which columns are missing
    waiting = [i.value for i in fresh.info if i.value.startswith("Waiting for the data")]
    assert len(waiting) == 1
    assert "lacks its columns two\\_year\\_recid, decile\\_score, race." in waiting[0]
    assert "compas\\-scores\\-two\\-years\\.csv" in waiting[0]
    assert widget(fresh, "selectbox", "Label column").value == "repaid"  # nothing applied

    restore(fresh, "bad.json", b'{"mapping": {"label": "y", "colour": 1}}')
    assert "mapping: Additional properties are not allowed \\('colour' was unexpected\\)" in fresh.error[0].value
    restore(fresh, "page.html", b"<html><body>no review</body></html>", "text/html")
    assert "neither a configuration" in fresh.error[0].value
    assert not fresh.exception


def test_a_link_asks_for_its_file_then_reopens_the_view(app, compas_csv):
    _compas_session(app, compas_csv)
    shown = fpr_table(app)
    param = app.query_params["review"]
    param = param[0] if isinstance(param, list) else param
    assert len(param) < 1000  # a URL that can be shared
    assert review_url.decode(param).thresholds == (("decile_score", 5.0),)

    # A reload (a new session) of the Rate disparities page with the link's settings.
    link = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    link.query_params["review"] = param
    link.switch_page("pages/rate_disparities.py").run()
    assert not link.exception
    assert [t.value for t in link.title] == ["Reopen a saved review"]
    assert "compas\\-scores\\-two\\-years\\.csv" in link.info[0].value and sha256(compas_csv) in link.info[0].value
    assert not link.dataframe and not link.sidebar.selectbox  # not the sample

    # A file without the columns: said, and still asking.
    link.file_uploader[0].set_value(("other.csv", csv_bytes(scored_table(200)), "text/csv")).run()
    assert "columns this data does not have" in link.error[0].value
    assert [t.value for t in link.title] == ["Reopen a saved review"]

    link.file_uploader[0].set_value((compas_csv.name, compas_csv.read_bytes(), "text/csv")).run()
    assert not link.exception and not link.error
    assert [t.value for t in link.title] == ["Rate disparities"]
    assert widget(link, "number_input", "Decision threshold").value == 5.0
    assert widget(link, "selectbox", "Reference").value == "overall"
    pd.testing.assert_frame_equal(fpr_table(link), shown)


def test_a_sample_link_opens_at_once():
    first = start()
    first.switch_page("pages/rate_disparities.py").run()
    widget(first, "number_input", "Decision threshold").set_value(0.3).run()
    widget(first, "selectbox", "Distance").set_value("ratio").run()
    param = first.query_params["review"]
    param = param[0] if isinstance(param, list) else param

    link = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    link.query_params["review"] = param
    link.run()
    link.switch_page("pages/rate_disparities.py").run()
    assert not link.exception
    assert widget(link, "number_input", "Decision threshold").value == 0.3
    assert widget(link, "selectbox", "Distance").value == "ratio"

    broken = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    broken.query_params["review"] = param[:40] + "x"
    broken.run()
    assert not broken.exception
    assert "could not be read" in broken.toast[0].value
    assert [t.value for t in broken.title] == ["Data"]


def test_every_download_neutralises_formula_cells(downloads):
    frame = scored_table(600)
    frame["race"] = frame["race"].replace({"Asian": '=HYPERLINK("http://x.test","click")', "Black": "@SUM(A1)"})
    app = start()
    upload(app, "formulas.csv", csv_bytes(frame))
    widget(app, "multiselect", "Score column").set_value(["score_a"]).run()
    widget(app, "multiselect", "Protected attributes").set_value(["race"]).run()
    assert not app.exception and not app.error
    prepare(app)

    with zipfile.ZipFile(io.BytesIO(downloads.ending("tables.zip"))) as archive:
        cells = [cell for name in archive.namelist()
                 for row in csv.reader(io.StringIO(archive.read(name).decode()))
                 if row and not row[0].startswith("#") for cell in row]
    assert "'=HYPERLINK(\"http://x.test\",\"click\")" in cells and "'@SUM(A1)" in cells
    for cell in cells:
        if cell.startswith(FORMULA_START):
            float(cell)  # only numbers (a negative value) may start so

    exported = json.loads(downloads.ending("review.json"))
    texts = [v for t in exported["tables"].values() for row in t["rows"] for v in row if isinstance(v, str)]
    assert "'=HYPERLINK(\"http://x.test\",\"click\")" in texts
    assert not [v for v in texts if v.startswith(FORMULA_START)]


def test_encoded_settings_refuse_damage_and_bombs():
    config = fc.ReviewConfig(mapping=fc.ColumnMapping(label="y", positive_label=1, scores=("s",), protected=("g",)),
                             thresholds=(("s", 0.3),), view={"subgroups:order": "name"})
    assert review_url.decode(review_url.encode(config)) == config
    for damaged in ("", "%%%", "eJw", "A" * 9000):
        with pytest.raises(ValueError, match="The saved settings cannot be read|configuration is not valid"):
            review_url.decode(damaged)
    import base64
    import zlib
    bomb = base64.urlsafe_b64encode(zlib.compress(b"{" + b" " * 1_000_000 + b"}", 9)).decode().rstrip("=")
    with pytest.raises(ValueError, match=f"more than {fc.MAX_CONFIG_BYTES:,} bytes"):
        review_url.decode(bomb)


def test_the_gate_options_of_a_restored_configuration_are_saved_again(app, compas_csv, downloads):
    """A configuration's release-gate options (no widget for the rules and strictness) survive a restore and a save,
    so the file the app writes drives the command line's gate as the one it read."""
    map_compas(app, compas_csv)
    mapping = fc.ColumnMapping(label="two_year_recid", positive_label=1, scores=("decile_score",),
                               protected=("race",))
    config = fc.ReviewConfig(mapping=mapping, gate_rules=("four_fifths", "equalized_odds"), gate_strict=True,
                             max_worsening=0.03, suggest_measure="recall")
    restore(app, "review-config.json", config.to_json().encode())
    assert not app.exception and not app.error
    app.switch_page("pages/overview.py").run()
    saved = json.loads(downloads.ending("review-config.json"))["options"]
    assert (saved["gate_rules"], saved["gate_strict"], saved["max_worsening"], saved["suggest_measure"]) == (
        ["four_fifths", "equalized_odds"], True, 0.03, "recall")
