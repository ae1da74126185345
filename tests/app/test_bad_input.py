"""AppTest: bad and hostile uploads get a clear message, never a traceback, and never stall the server."""

import io
import time
import tomllib

import numpy as np
import pandas as pd
import pytest
from streamlit.config import ShowErrorDetailsConfigOptions

from fairness_core._data.reading import NESTED_NOTE, REPEATED_NAMES_MESSAGE
from tests.app.helpers import PAGES, ROOT, each_section, metrics, widget
from fairness_dashboard.data import profiling
from fairness_dashboard.presentation import escape, labels

N = 300


def upload(app, name: str, payload: bytes, mime: str = "text/csv"):
    widget(app, "radio", "Source").set_value("upload").run()
    app.file_uploader[0].set_value((name, payload, mime)).run()


def scored_frame() -> pd.DataFrame:
    """A label, a probability score and a race attribute (three subgroups, both classes in each)."""
    i = np.arange(N)
    return pd.DataFrame({"label": i % 2, "score": np.round((i % 10) / 10 + 0.05, 2),
                         "race": np.array(["A", "B", "C"])[(i // 2) % 3]})


def assert_every_page_renders(app):
    for page in PAGES:
        app.switch_page(page).run()
        for section in each_section(app, page):   # every secondary section of the page in turn
            assert not app.exception, (page, section, app.exception)
            assert not app.error, (page, section, [e.value for e in app.error])


@pytest.mark.parametrize("ending", ["\r\n", "\r"], ids=["CRLF", "CR"])
def test_every_line_ending_reads_the_same_table(ending):
    # CR-only is Excel for Mac's "CSV (Macintosh)"; it showed a raw _csv.Error traceback. The reader gives the same
    # table for each ending (the pages then cannot differ: the LF upload below walks them).
    import fairness_core as fc

    want = fc.read_table(scored_frame().to_csv(index=False, lineterminator="\n").encode(), name="scores.csv")
    got = fc.read_table(scored_frame().to_csv(index=False, lineterminator=ending).encode(), name="scores.csv")
    pd.testing.assert_frame_equal(got, want)
    assert got.shape == (N, 3)


def test_an_upload_maps_its_columns_and_every_page_renders(app):
    upload(app, "scores.csv", scored_frame().to_csv(index=False, lineterminator="\n").encode())
    assert not app.exception and not app.error
    assert metrics(app)["Rows in file"] == f"{N:,}"
    assert metrics(app)["Rows used"] == f"{N:,}"
    assert widget(app, "selectbox", labels.LABEL_COLUMN).value == "label"
    assert widget(app, "multiselect", labels.SCORE_COLUMN).value == ["score"]
    assert list(app.dataframe[0].value["subgroup"]) == ["A", "B", "C"]
    assert_every_page_renders(app)


def test_pathological_quote_comma_upload_is_refused_at_once(app):
    # 64 KB of '",' made csv.Sniffer backtrack for about a minute, holding the GIL (every session stalled).
    start = time.process_time()  # CPU seconds of every thread (AppTest runs the script in this process)
    upload(app, "stall.csv", b'",' * 32768)
    elapsed = time.process_time() - start
    assert not app.exception
    assert [e.value for e in app.error] == [  # escaped: the message holds the file name and a column name
        escape.md(REPEATED_NAMES_MESSAGE.format(name="stall.csv", count=16_383, example=","))]
    assert elapsed < 5  # generous: milliseconds of parsing plus two AppTest reruns; the stall was a CPU-minute


def nested_parquet() -> bytes:
    """Label, score and race beside a list, a struct and a map column (each with a missing value)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    frame = scored_frame()
    table = pa.Table.from_pandas(frame, preserve_index=False)
    table = table.append_column("tags", pa.array([None if i == 7 else ["x", "y"][: i % 3] for i in range(N)],
                                                 pa.list_(pa.string())))
    table = table.append_column("info", pa.array([None if i == 8 else {"k": i % 4, "s": "v"} for i in range(N)],
                                                 pa.struct([("k", pa.int64()), ("s", pa.string())])))
    table = table.append_column("attrs", pa.array([None if i == 9 else [("a", i % 2)] for i in range(N)],
                                                  pa.map_(pa.string(), pa.int64())))
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    return buffer.getvalue()


def test_parquet_with_nested_columns_loads_maps_and_renders(app):
    upload(app, "nested.parquet", nested_parquet(), "application/octet-stream")
    assert not app.exception and not app.error
    assert [i.value for i in app.info] == [escape.md(NESTED_NOTE.format(columns="'tags', 'info', 'attrs'"))]
    assert metrics(app)["Rows used"] == f"{N:,}"
    assert widget(app, "multiselect", labels.PROTECTED).value == ["race"]
    # a nested column (now text) can itself be chosen as an attribute
    widget(app, "multiselect", labels.PROTECTED).set_value(["race", "tags"]).run()
    assert not app.exception and not app.error
    assert '["x", "y"]' in " ".join(app.dataframe[0].value["subgroup"])
    widget(app, "multiselect", labels.PROTECTED).set_value(["race"]).run()
    assert_every_page_renders(app)


def test_column_profile_counts_unhashable_values_by_their_text():
    frame = pd.DataFrame({
        "lists": pd.Series([[1, 2], [1, 2], [3], None], dtype=object),
        "dicts": pd.Series([{"a": 1}, {"a": 2}, {"a": 1}, {"a": 1}], dtype=object),
        "arrays": pd.Series([np.array([1, 2]), np.array([1, 2]), None, np.array([0])], dtype=object),
        "y": [0, 1, 0, 1],
    })
    profile = profiling.column_profile.__wrapped__("t", frame).set_index("column")
    assert profile["n_unique"].to_dict() == {"lists": 2, "dicts": 2, "arrays": 2, "y": 2}
    assert profile["n_missing"].to_dict() == {"lists": 1, "dicts": 0, "arrays": 1, "y": 0}


def test_deployed_app_shows_no_error_details():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    # "none": a generic message only; no exception type, message, traceback or server path
    assert config["client"]["showErrorDetails"] == ShowErrorDetailsConfigOptions.NONE
