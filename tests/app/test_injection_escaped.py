"""What every page sends for a file whose name, columns and values are markup (tests/hostile_data.py).

Every text field Streamlit renders as Markdown (bodies of markdown, captions, alerts and toasts;
labels, values, deltas and help of tiles and widgets; radio options; expander and tab labels)
must hold the data text only as ``fairness_dashboard.presentation.escape.md`` writes it, and every string of every
Plotly figure only as ``plotting.plot_text`` writes it. The browser test (tests/browser/test_injection_browser.py)
checks what Chromium then renders and fetches.
"""

from __future__ import annotations

import json
import tomllib

import pytest
from google.protobuf.message import Message

from fairness_core.plotting import plot_text
from tests import hostile_data as hostile
from tests.app.helpers import PAGES, each_section, open_section, start, widget
from tests.support import ROOT
from fairness_dashboard.presentation import escape, labels

# Element types whose strings are shown as plain text, or are data rather than text to render.
PLAIN = {"text", "code", "json", "plotly_chart", "arrow_data_frame", "arrow_table", "exception"}
MARKDOWN_FIELDS = {"body", "label", "help", "delta"}


def _strings(message: Message, path: str = ""):
    """(field path, value) of every string field in a protobuf message, nested messages included."""
    for field, value in message.ListFields():
        values = value if type(value).__name__.startswith("Repeated") else [value]
        for item in values:
            if isinstance(item, Message):
                yield from _strings(item, f"{path}.{field.name}")
            elif isinstance(item, str):
                yield f"{path}.{field.name}", item


def rendered_markdown(node) -> list[tuple[str, str, str]]:
    """(element type, field, text) of every string of the page that Streamlit renders as Markdown."""
    out = []
    kind = getattr(node, "type", "")
    proto = getattr(node, "proto", None)
    if isinstance(proto, Message) and kind not in PLAIN:
        for path, value in _strings(proto):
            field = path.rsplit(".", 1)[-1]
            if field in MARKDOWN_FIELDS or (kind == "radio" and field == "options"):
                out.append((kind, path, value))
    for child in getattr(node, "children", {}).values():
        out += rendered_markdown(child)
    return out


def figure_strings(app) -> list[str]:
    """Every string in the data and layout of every Plotly figure of the page (keys excluded)."""
    def walk(value):
        if isinstance(value, str):
            yield value
        elif isinstance(value, dict):
            for v in value.values():
                yield from walk(v)
        elif isinstance(value, list):
            for v in value:
                yield from walk(v)

    figures = [json.loads(chart.proto.spec) for chart in app.get("plotly_chart")]
    return [s for fig in figures for s in walk({"data": fig.get("data"), "layout": fig.get("layout")})]


def assert_escaped(app, page: str) -> list[str]:
    """No raw data text in any Markdown field or figure of `page`; returns the Markdown texts."""
    assert not app.exception, f"{page}: {app.exception}"
    texts = rendered_markdown(app._tree)
    for kind, path, value in texts:
        for raw in hostile.VALUES + (hostile.FILE_NAME, hostile.RACE, hostile.LABEL, hostile.SCORE):
            assert raw not in value, f"{page}: unescaped data text in {kind}{path}: {value!r}"
        assert "://" not in value and ":red[" not in value, f"{page}: a link or directive can form: {value!r}"
    for value in figure_strings(app):
        for tag in ("<script", "<img", "<a ", "<a>"):
            assert tag not in value.lower(), f"{page}: markup in a figure: {value!r}"
        assert "://" not in value, f"{page}: a URL in a figure: {value!r}"
    return [value for _, _, value in texts]


@pytest.fixture(scope="module")
def hostile_app():
    app = start()
    widget(app, "radio", "Source").set_value("upload").run()
    app.file_uploader[0].set_value((hostile.FILE_NAME, hostile.csv_bytes(), "text/csv")).run()
    assert not app.exception, app.exception
    widget(app, "selectbox", "Bootstrap replicates").set_value(200).run()  # the same texts, computed faster
    return app


def test_every_page_sends_data_text_escaped(hostile_app):
    app = hostile_app
    app.switch_page("pages/subgroup_aucs.py").run()
    open_section(app, "auc:section", "Compare models")
    widget(app, "toggle", "Compare models").set_value(True).run()  # model names in every comparison section
    shown = []
    for page in PAGES:
        if page != "pages/data.py":
            app.switch_page(page).run()
        for section in each_section(app, page):   # every secondary section of the page in turn
            shown += assert_escaped(app, f"{page} {section or ''}")
    everything = "\n".join(shown)
    # The data text is there, as md writes it: the file name (context line), subgroups, columns, classes.
    for value in (hostile.FILE_NAME, hostile.LATEX, hostile.IMAGE, hostile.URL, hostile.SCORE, hostile.POSITIVE):
        assert escape.md(value) in everything, f"{value!r} is not shown (escaped) on any page"
    # Tables show subgroup names exactly as in the file (no apostrophe): their verbatim CSV download and
    # clipboard copy are switched off instead (client.disableDataExport; the browser test checks the toolbar).
    app.switch_page("pages/data.py").run()
    subgroups = next(d.value for d in app.dataframe if "subgroup" in d.value.columns)
    assert sorted(subgroups["subgroup"]) == sorted(hostile.VALUES)


def test_named_reference_legend_and_error_message_are_escaped(hostile_app):
    app = hostile_app
    # A named reference (default: the largest subgroup, the Markdown link) reaches the chart's legend escaped.
    app.switch_page("pages/rate_disparities.py").run()
    widget(app, "selectbox", "Reference").set_value("named").run()
    assert widget(app, "selectbox", "Reference subgroup").value == hostile.LINK
    assert_escaped(app, "rate disparities, named reference")
    names = {trace.get("name") for trace in json.loads(app.get("plotly_chart")[0].proto.spec)["data"]}
    assert plot_text("Reference: " + hostile.LINK) in names
    assert any(f"against the subgroup {escape.md(hostile.LINK)}" in c.value for c in app.caption)
    widget(app, "selectbox", "Reference").set_value("rest").run()

    # A mapping error that names a column: shown through md, never raw.
    app.switch_page("pages/data.py").run()
    widget(app, "selectbox", "Label column").set_value(hostile.SCORE_2).run()
    widget(app, "checkbox", "Keep all classes").set_value(False).run()
    assert len(app.error) == 1, "a score as a two-class label is refused"
    assert_escaped(app, "data, refused mapping")
    assert app.error[0].value.startswith(f"The label column '{escape.md(hostile.SCORE_2)}' must have exactly two values")
    widget(app, "selectbox", "Label column").set_value(hostile.LABEL).run()
    assert not app.error


def test_reference_legend_tells_a_subgroup_called_rest_from_the_keyword():
    import fairness_core as fc

    assert labels.reference_legend("rest") == "Rest of population"
    assert labels.reference_legend("overall") == "Whole population"
    assert labels.reference_legend(fc.named_reference("rest")) == "Reference: rest"


def test_config_hides_the_verbatim_table_download_and_error_details():
    client = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["client"]
    # st.dataframe's own "Download as CSV" (and clipboard copy) would write =HYPERLINK(...) cells as they are.
    assert client["disableDataExport"] is True
    assert client["showErrorDetails"] == "none"
