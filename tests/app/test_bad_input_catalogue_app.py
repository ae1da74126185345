# More than 500 lines: one concept (the bad-input catalogue through the app, entry by entry, beside its library half).
"""The bad-input catalogue through the app (AppTest): each entry uploads a file built here and
asserts the exact message the Data page shows, or the documented correction. The library side of each
entry is tests/fairness_core/test_bad_input_catalogue.py; entries the app already tests are not repeated
(line endings, the '",' stall and nested Parquet: test_bad_input.py; ±inf, keyword subgroups:
test_odd_data.py; memory limits and the configured upload limit: test_large_upload.py).

One app serves the whole module (uploads replace each other, as a user's do), to keep it fast.
"""

from __future__ import annotations

import gzip
import io
import json

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
import fairness_core._data.reading as fio
from fairness_core._data.mapping_guess import MISSING_LABEL, MISSING_OUTPUT
from fairness_core._counts.scored_data import LABEL_TOO_FEW, LABEL_VALUES
from fairness_core._subgroups.subgroups import TOO_MANY_MESSAGE
from tests.app.helpers import figures, metrics, start, widget
from tests.fairness_core.test_bad_input_catalogue import (GROUPS, LABEL, LONG_FIRST_ROW, N, PLAIN, SCORES,
                                                          formula_cells, gzip_bomb, hostile_review, mixed_encoding,
                                                          parquet, table_text, workbook)
from fairness_dashboard.data import analysis, loading, profiling
from fairness_dashboard.presentation import escape, formats, labels


@pytest.fixture(scope="module")
def app():
    return start()


def load(at, name: str, payload: bytes):
    """Upload `payload` as `name` on the Data page, replacing whatever is loaded."""
    at.switch_page("pages/data.py").run()
    if widget(at, "radio", "Source").value != "upload":
        widget(at, "radio", "Source").set_value("upload").run()
    if any(b.label == "Replace file" for b in at.button):
        next(b for b in at.button if b.label == "Replace file").click().run()
    at.file_uploader[0].set_value((name, payload, "application/octet-stream")).run()
    assert not at.exception, at.exception
    return at


def errors(at) -> list[str]:
    return [e.value for e in at.error]


def infos(at) -> list[str]:
    return [i.value for i in at.info]


# Files refused while reading: the exact message, and nothing of the previous file left -------------------

REFUSED = [
    ("empty.csv", b"", fio.EMPTY_MESSAGE),
    ("header.csv", b"label,score,race\n", fio.NO_ROWS_MESSAGE),
    ("garbage.csv", np.random.default_rng(0).bytes(5000), fio.ENCODING_MESSAGE),
    ("book.csv", workbook(), fio.WORKBOOK_MESSAGE),
    ("ragged.csv", b"a,b,c\n1,2,3\n4,5,6,7\n", fio.UNREADABLE_MESSAGE.replace("{kind}", "CSV").replace(
        "{error}", "Error tokenizing data. C error: Expected 3 fields in line 3, saw 4")),
    # L1: these 3 bytes raised KeyError(' ') in the reader and crashed the Data page
    ("blank.csv", b" \r;", fio.UNREADABLE_MESSAGE.replace("{kind}", "CSV").replace(
        "{error}", "No columns to parse from file")),
    # M6: every row one field longer than the header was read shifted (pandas' implicit index)
    ("shifted.csv", LONG_FIRST_ROW, fio.LONG_ROWS_MESSAGE.replace("{fields:,}", "3").replace("{columns:,}", "2")),
    # L4: a gzip bomb (here 64 MiB of zeros in 65 KB) was decompressed up to 1 GiB before its refusal
    ("bomb.csv.gz", gzip_bomb(b"", b"\0", 64 << 20), fio.GZIP_NO_ROWS_MESSAGE.replace("{limit:,}", "16,777,216")),
]


@pytest.mark.parametrize("name, payload, message", REFUSED, ids=[r[0] for r in REFUSED])
def test_refused_files_show_the_message(app, name, payload, message):
    load(app, name, payload)
    assert errors(app) == [escape.md(message.format(name=name))]
    assert not metrics(app)


def test_a_failed_upload_clears_the_previous_results_on_every_page(app):
    load(app, "good.csv", table_text().encode())
    assert metrics(app)["Rows in file"] == f"{N:,}"
    app.switch_page("pages/overview.py").run()
    assert metrics(app)["Rows analysed"] == f"{N:,}"
    load(app, "broken.csv", b"")
    message = fio.EMPTY_MESSAGE.format(name="broken.csv")
    assert errors(app) == [escape.md(message)]
    for page in ("pages/overview.py", "pages/subgroup_aucs.py", "pages/rate_disparities.py"):
        app.switch_page(page).run()
        assert not app.exception and not metrics(app) and not app.dataframe, page   # nothing of good.csv
        assert [w.value for w in app.warning] == [analysis.FAILED_UPLOAD_MESSAGE.format(name=escape.md("broken.csv"))]
        assert app.sidebar.text[0].value == "none"
    # back on the Data page (the uploader is empty again): the reason, and what to do
    app.switch_page("pages/data.py").run()
    assert errors(app) == [f"The last upload, {escape.md('broken.csv')}, could not be loaded: {escape.md(message)}"]
    # a sample loads again, and the pages show it
    widget(app, "radio", "Source").set_value("credit").run()
    app.switch_page("pages/overview.py").run()
    assert metrics(app)["Rows analysed"] == "6,000" and not app.warning


# Files read with a documented correction ----------------------------------------------------------------

def note_of(template: str, **values) -> str:
    return escape.md(template.format(**values))


READ = [
    ("gzip renamed .csv", "renamed.csv", gzip.compress(table_text().encode()), [fio.GZIP_NOTE], N),
    (".csv.gz", "scores.csv.gz", gzip.compress(table_text(";").encode()), [fio.GZIP_NOTE], N),
    ("semicolon", "semi.csv", table_text(";").encode(), [], N),
    ("tab", "tab.tsv", table_text("\t").encode(), [], N),
    ("pipe", "pipe.txt", table_text("|").encode(), [], N),
    ("UTF-8 with BOM", "bom.csv", table_text().encode("utf-8-sig"), [], N),
    ("UTF-16", "utf16.csv", table_text().encode("utf-16"), [], N),
    ("cp1252", "legacy.csv", table_text(group=["Besançon" if g == "A" else g for g in GROUPS]).encode("cp1252"), [], N),
    ("quoted newlines", "quoted.csv", table_text(group=[f'"{g}\nline two"' for g in GROUPS]).encode(), [], N),
    ("decimal commas", "comma.csv", table_text(";", score=[str(s).replace(".", ",") for s in SCORES]).encode(),
     [fio.DECIMAL_COMMA_NOTE.replace("{columns}", "'score'")], N),
]


@pytest.mark.parametrize("name, payload, notes, rows", [r[1:] for r in READ], ids=[r[0] for r in READ])
def test_read_with_the_documented_correction(app, name, payload, notes, rows):
    load(app, name, payload)
    assert not errors(app)
    assert infos(app) == [note_of(n, name=name) for n in notes]
    assert metrics(app)["Rows in file"] == f"{rows:,}" and metrics(app)["Rows used"] == f"{rows:,}"
    assert widget(app, "selectbox", labels.LABEL_COLUMN).value == "label"
    assert widget(app, "multiselect", labels.SCORE_COLUMN).value == ["score"]
    assert widget(app, "multiselect", labels.PROTECTED).value == ["race"]
    assert len(app.dataframe[0].value) == 3   # three subgroups


def test_mixed_encodings_give_one_subgroup_and_a_note(app):
    load(app, "mixed.csv", mixed_encoding())
    assert infos(app) == [note_of(fio.MIXED_ENCODING_NOTE, name="mixed.csv", count="3 bytes", line=N + 2)]
    groups = app.dataframe[0].value.set_index("subgroup")["size"].to_dict()
    assert groups == {"B": 20, "Besançon": 23, "C": 20}


def test_numbers_written_as_text_say_why_they_are_no_score(app):
    frame = PLAIN.assign(score_dc=[str(s).replace(".", ",") for s in SCORES],
                         score_pct=[f"{round(s * 100)} %" for s in SCORES],
                         score_k=[f"{1000 + s:,.2f}" for s in SCORES])
    load(app, "text_numbers.csv", frame.to_csv(index=False).encode())
    reasons = "; ".join(escape.md(f"{c!r} {r}") for c, r in [
        ("score_dc", "holds numbers written with a decimal comma (for example '0,05')"),
        ("score_pct", "holds percentages written with a % sign (for example '5 %')"),
        ("score_k", "holds numbers written with thousands separators (for example '1,000.05')")])
    assert infos(app) == [profiling.NOT_SCORES_MESSAGE.format(reasons=reasons)]
    assert widget(app, "multiselect", labels.SCORE_COLUMN).options == ["score"]


def test_no_header_blank_and_long_names_are_noted(app):
    body = "".join(f"{y},{s},{g}\n" for y, s, g in zip(LABEL, SCORES, GROUPS))
    load(app, "nohead.csv", body.encode())
    assert infos(app)[0] == note_of(fio.NO_HEADER_NOTE, name="nohead.csv", example="'0', '0.05'")
    long_name = "protected_" + "x" * 5000
    load(app, "names.csv", PLAIN.rename(columns={"race": long_name}).assign(**{"": 1}).to_csv(index=False).encode())
    assert infos(app)[0] == note_of(fio.BLANK_NAMES_NOTE, columns="'Unnamed: 3'")
    widget(app, "multiselect", labels.PROTECTED).set_value([long_name]).run()
    assert not app.exception and not errors(app) and len(app.dataframe[0].value) == 3


def test_five_thousand_columns(app):
    wide = pd.concat([PLAIN, pd.DataFrame(np.ones((N, 4997)), columns=[f"f{i}" for i in range(4997)])], axis=1)
    load(app, "wide.csv", wide.to_csv(index=False).encode())
    assert not errors(app) and metrics(app)["Rows used"] == f"{N:,}"
    assert widget(app, "multiselect", labels.SCORE_COLUMN).value == ["score"]


# Labels, scores and attributes ---------------------------------------------------------------------------

def test_label_problems(app):
    load(app, "labels.csv", PLAIN.assign(one=1, three=[i % 3 for i in range(N)],
                                         spelled=["yes", "Yes", "YES", "no"] * (N // 4)).to_csv(index=False).encode())
    label = widget(app, "selectbox", labels.LABEL_COLUMN)
    label.set_value("one").run()
    assert errors(app) == [escape.md(LABEL_TOO_FEW.format(col="one", n=1, values="1"))]
    widget(app, "selectbox", labels.LABEL_COLUMN).set_value("spelled").run()
    widget(app, "checkbox", labels.KEEP_ALL_CLASSES).uncheck().run()
    assert errors(app) == [escape.md(LABEL_VALUES.format(col="spelled", n=4, values="'yes', 'Yes', 'YES', 'no'"))]
    widget(app, "selectbox", labels.LABEL_COLUMN).set_value("three").run()
    widget(app, "checkbox", labels.KEEP_ALL_CLASSES).check().run()
    assert not errors(app)
    assert any(m.value.startswith("**3 classes** in three: 0 (20), 1 (20), 2 (20)") for m in app.markdown)


def test_missing_and_infinite_values_are_excluded_and_counted(app):
    frame = PLAIN.astype({"label": "float64"})
    frame.loc[:4, "label"] = np.nan
    frame.loc[10:12, "score"] = np.nan
    frame.loc[20, "score"], frame.loc[21, "score"] = np.inf, -np.inf
    load(app, "missing.csv", frame.to_csv(index=False).encode())
    assert metrics(app)["Rows excluded"] == "10"
    assert app.dataframe[0].value.values.tolist() == [["missing label", 5], ["missing or infinite score in 'score'", 5]]


def test_nullable_parquet_columns(app):
    import pyarrow as pa

    label = pa.array([None if i < 4 else y for i, y in enumerate(LABEL)], pa.int64())
    frame = pd.DataFrame({"label": pd.array(label.to_pylist(), dtype="Int64"), "score": SCORES,
                          "race": pd.array(GROUPS, dtype="string")})
    buffer = io.BytesIO()
    frame.to_parquet(buffer, index=False)
    load(app, "nullable.parquet", buffer.getvalue())
    assert metrics(app)["Rows used"] == f"{N - 4:,}"
    assert app.dataframe[0].value.values.tolist() == [["missing label", 4]]


def test_constant_and_huge_scores_render_every_analysis_page(app):
    load(app, "odd_scores.csv", PLAIN.assign(constant=0.3, huge=np.array(SCORES) * 1.7e308).to_csv(index=False).encode())
    widget(app, "multiselect", labels.SCORE_COLUMN).set_value(["constant", "huge"]).run()
    assert not errors(app)
    from sklearn.metrics import roc_auc_score

    for model, auc in (("constant", 0.5), ("huge", roc_auc_score(LABEL, SCORES))):
        widget(app, "selectbox", labels.MODEL).set_value(model).run()
        app.switch_page("pages/subgroup_aucs.py").run()
        assert not app.exception and not errors(app), model
        assert metrics(app)["Overall AUC"] == formats.tile(auc)
        app.switch_page("pages/rate_disparities.py").run()
        assert not app.exception and not errors(app), model
        assert app.dataframe[0].value["size"].sum() == N
        app.switch_page("pages/data.py").run()


def test_scores_outside_the_unit_interval_on_the_calibration_page(app):
    load(app, "risk.csv", PLAIN.assign(score=np.array(SCORES) * 10).to_csv(index=False).encode())
    app.switch_page("pages/calibration.py").run()
    assert not app.exception and not errors(app) and not app.get("plotly_chart")
    assert [w.value for w in app.warning] == [
        "Calibration needs predicted probabilities in [0, 1], but score ranges from 0.5 to 9.5. A risk score on "
        "another scale (such as 1-10 deciles) is not a probability, so its calibration cannot be assessed. Choose a "
        "probability column under Model in the sidebar, or use the Subgroup AUCs and Rate disparities pages for "
        "this score."]


def test_attribute_problems(app):
    n = 100_000
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"label": np.arange(n) % 2, "score": np.round(rng.random(n), 4),
                          "user_id": [f"u{i}" for i in range(n)], "weight": rng.random(n), "race": None})
    frame.loc[: n // 2, "race"] = "A"   # (half missing)
    frame["nothing"] = np.nan
    load(app, "ids.csv", frame.to_csv(index=False).encode())
    protected = widget(app, "multiselect", labels.PROTECTED)
    protected.set_value(["user_id"]).run()
    assert errors(app) == [escape.md(TOO_MANY_MESSAGE.format(n=n, max=200))]
    widget(app, "multiselect", labels.PROTECTED).set_value(["weight"]).run()   # floats: four quantile bins
    assert not errors(app) and app.dataframe[0].value["size"].tolist() == [n // 4] * 4
    # A column named weight is proposed as sample weights, never applied unasked
    assert app.session_state["mapping"].weight is None
    widget(app, "multiselect", labels.PROTECTED).set_value(["nothing"]).run()  # all missing: one subgroup
    assert app.dataframe[0].value["subgroup"].tolist() == ["(missing)"]
    app.switch_page("pages/overview.py").run()
    assert [w.value for w in app.warning][0].startswith(f"Only one subgroup ({escape.md('(missing)')}) is in")
    # N12: one subgroup crashed the Overview and Calibration; every page and section answers it
    from tests.app.helpers import PAGES, each_section

    for page in PAGES:
        app.switch_page(page).run()
        for section in each_section(app, page):
            assert not app.exception, (page, section, app.exception)


def test_subgroups_without_positives_or_negatives(app):
    frame = PLAIN.assign(label=[1 if g == "A" else 0 if g == "B" else y for g, y in zip(GROUPS, LABEL)])
    load(app, "one_sided.csv", frame.to_csv(index=False).encode())
    app.switch_page("pages/subgroup_aucs.py").run()
    assert not app.exception and not errors(app)
    table = next(d.value for d in app.dataframe if "subgroup_auc" in d.value.columns).set_index("subgroup")
    assert table["subgroup_auc"].isna().tolist() == [True, True, False]


def test_a_single_row(app):
    # No column has two values, so the first guess finds no label: the page says what to choose.
    load(app, "one.csv", b"label,score,race\n1,0.5,A\n")
    assert not errors(app)
    assert infos(app) == [" ".join([MISSING_LABEL, MISSING_OUTPUT])
                          + " The mapping above is a first guess from the column names; complete it."]
    widget(app, "multiselect", labels.SCORE_COLUMN).set_value(["score"]).run()
    assert errors(app) == [escape.md(LABEL_TOO_FEW.format(col="label", n=1, values="1"))]


def test_parquet_decimal_datetime_and_categorical_columns(app):
    import decimal

    import pyarrow as pa

    payload = parquet(score=pa.array([decimal.Decimal(str(s)) for s in SCORES], pa.decimal128(4, 2)),
                      day=pa.array(pd.date_range("2024-01-01", periods=3).repeat(N // 3)),
                      race=pa.array(pd.Categorical(GROUPS)))
    load(app, "types.parquet", payload)
    assert infos(app) == [note_of(fio.DECIMAL_TYPE_NOTE, columns="'score'")]
    assert widget(app, "multiselect", labels.SCORE_COLUMN).value == ["score"]
    widget(app, "multiselect", labels.PROTECTED).set_value(["race", "day"]).run()
    assert not errors(app) and len(app.dataframe[0].value) == 9   # 3 x 3 observed combinations


# Slices and the predicted-label sentinel ----------------------------------------------------------------

def st_slice_text() -> str:
    import fairness_core as fc

    return fc.Slice((fc.Condition("label", values=("1",)), fc.Condition("score", values=("0.05",)))).describe()


def test_a_zero_row_slice_says_so_on_every_page(app):
    load(app, "slice.csv", table_text().encode())
    widget(app, "multiselect", "Slice by").set_value(["label", "score"]).run()
    widget(app, "multiselect", "label").set_value(["1"]).run()
    widget(app, "multiselect", "score").set_value(["0.05"]).run()   # every score 0.05 has label 0: no row
    described = st_slice_text()
    message = analysis.EMPTY_SLICE_MESSAGE.format(slice=escape.md(described), n=N)
    assert [w.value for w in app.warning] == [message] and not errors(app)
    for page in ("pages/overview.py", "pages/calibration.py"):
        app.switch_page(page).run()
        assert [w.value for w in app.warning] == [message], page
        assert not any("No data is mapped yet" in i.value for i in app.info)
    # widened again, the mapping was kept: the pages show the data
    widget(app, "multiselect", "Slice by").set_value([]).run()
    app.switch_page("pages/overview.py").run()
    assert not app.warning and metrics(app)["Rows analysed"] == f"{N:,}"


def test_a_column_named_none_can_be_the_predicted_label(app):
    load(app, "none.csv", PLAIN.assign(**{"(none)": (np.array(SCORES) < 0.3).astype(int)}).to_csv(index=False).encode())
    predicted = widget(app, "selectbox", labels.PREDICTED_COLUMN)
    assert predicted.value is None and predicted.options == [labels.NO_PREDICTED, "(none)"]
    predicted.set_value("(none)").run()
    assert widget(app, "selectbox", labels.PREDICTED_COLUMN).value == "(none)"
    assert not errors(app)
    # the given predictions are used: their selection rates, not a threshold's
    app.switch_page("pages/rate_disparities.py").run()
    assert not app.exception and not errors(app)
    widget(app, "radio", "Predictions from").set_value("given").run()
    rates = app.dataframe[0].value.set_index("subgroup")["selection_rate"]
    expected = (np.array(SCORES) < 0.3).astype(int)   # (no threshold on the score gives these)
    assert rates.to_dict() == pd.Series(expected).groupby(np.array(GROUPS)).mean().to_dict()


# Restores and links -------------------------------------------------------------------------

def test_a_hostile_restore_file_is_refused_at_once(app):
    # H1: 5 MB of opening tags without a close made the lazy regex quadratic (714 KB froze every session for 69 s);
    # two str.find calls read it in one pass. The stall check of a second session is in the browser tests.
    from tests.app.review_helpers import restore
    from fairness_dashboard.settings import review_restore as review

    hostile = b'<script type="application/json" id="review-config">' * 100_000
    assert len(hostile) > 5_000_000
    restore(app, "hostile.html", hostile, "text/html")
    assert not app.exception
    assert "neither a configuration \\(JSON\\) nor a review's HTML report" in errors(app)[0]
    # ... and a report whose configuration closes is still read
    config = fc.ReviewConfig(mapping=fc.ColumnMapping(label="y", positive_label=1, scores=("s",)))
    page = (b"<html>" + hostile[:1000] + b'<script type="application/json" id="review-config">'
            + config.to_json().encode() + b"</script></html>")
    assert review.read_config(page) == config


def test_a_restore_file_or_link_of_millions_of_items_is_refused_at_once(app):
    # jsonschema kept an error per item of an array past its maxItems (4.5 GB after 9 minutes for a
    # file of 3,000,000 {}); the sizes are checked first (tests/ui/test_restore_limits.py measures CPU and memory).
    import base64
    import time
    import zlib

    from tests.app.review_helpers import restore

    data = {"version": 1, "mapping": {"label": "repaid", "positive_label": 1},
            "slice": [{"column": "sex", "values": [{}] * 3_000_000}]}
    started = time.process_time()
    restore(app, "items.json", json.dumps(data).encode())
    assert not app.exception and time.process_time() - started < 5   # generous: two AppTest reruns
    assert "larger than a configuration can be" in errors(app)[0]
    data["slice"][0]["values"] = [{}] * 99_950
    link = base64.urlsafe_b64encode(zlib.compress(json.dumps(data).encode(), 9)).decode().rstrip("=")
    assert len(link) < 1000
    from streamlit.testing.v1 import AppTest

    from tests.app.helpers import ROOT

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["review"] = link
    at.run()
    assert not at.exception
    toast = at.toast[0].value if at.toast else ""
    assert "The settings in this link could not be read" in toast and "slice\\.0\\.values: 99,950 items" in toast, toast


def link_with(**options) -> str:
    """A ``?review=`` parameter of the bundled sample's settings with `options` written in, unchecked (as a hand-made
    link would be)."""
    import base64
    import json
    import zlib

    from tests.app.helpers import start

    first = start()
    param = first.query_params["review"]
    param = param[0] if isinstance(param, list) else param
    data = json.loads(zlib.decompress(base64.urlsafe_b64decode(param + "=" * (-len(param) % 4))))
    data["options"] = data.get("options", {}) | options
    return base64.urlsafe_b64encode(zlib.compress(json.dumps(data).encode())).decode().rstrip("=")


# One link's rerun under this address-space cap (the bound docs/security.md states for one worker; an AppTest of the app on
# its sample, with the Overview, peaks at about 2.1 GiB of address space on this machine).
ADDRESS_SPACE = 3 * 2 ** 30
LINK_SCRIPT = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({cap}, {cap}))
from streamlit.testing.v1 import AppTest
link = AppTest.from_file("app.py", default_timeout=120)
link.query_params["review"] = sys.argv[1]
link.run()
print("TOAST:", link.toast[0].value if link.toast else "")
link.switch_page("pages/overview.py").run()
assert not link.exception, link.exception
"""


@pytest.mark.parametrize("options, field", [({"cal_n_bins": 10 ** 7}, "options\\.cal\\_n\\_bins"),
                                            ({"n_boot": 10 ** 9}, "options\\.n\\_boot")])
def test_a_link_sizing_a_computation_beyond_its_bound_is_refused_under_an_address_space_cap(options, field):
    # H2: cal_n_bins = 10^7 in a link grew the server to 19 GB; the schema refuses it before anything is applied.
    import subprocess
    import sys

    from tests.app.helpers import ROOT

    done = subprocess.run([sys.executable, "-c", LINK_SCRIPT.format(cap=ADDRESS_SPACE), link_with(**options)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    toast = done.stdout.split("TOAST:")[1].split("\n")[0]
    assert "The settings in this link could not be read" in toast and field in toast and "maximum" in toast


# Exports (M3) ---------------------------------------------------------------------------------------------------

def test_no_cell_of_the_tables_zip_starts_a_formula(tmp_path):
    # M3: a file named 'x,=1+1.csv' put the cell '=1+1' into every CSV of the Overview's ZIP (its context lines).
    import zipfile

    from fairness_dashboard.settings import review_export as ui_review

    with zipfile.ZipFile(io.BytesIO(ui_review.tables_zip(hostile_review(tmp_path)))) as archive:
        texts = {name: archive.read(name).decode() for name in archive.namelist()}
    assert len(texts) > 10
    for name, content in texts.items():
        assert formula_cells(content) == [], name
        assert '# source: {"name": "x\\u002c=1+1\\u003b@2.csv", ' in content, name


# Many overlapping identity columns with intervals on ---------------------------------------------------

def identity_file(n_rows: int, n_columns: int, seed: int = 0) -> bytes:
    """A label, a probability score and `n_columns` overlapping 0/1 identity columns (each row in ~20 % of each)."""
    rng = np.random.default_rng(seed)
    columns = {"label": rng.integers(0, 2, n_rows), "score": rng.random(n_rows).round(4)}
    columns |= {f"identity_{j}": (rng.random(n_rows) < 0.2).astype(int) for j in range(n_columns)}
    return pd.DataFrame(columns).to_csv(index=False).encode()


@pytest.mark.parametrize("n_rows, n_columns", [(20_000, 20), (100_000, 51), (20_000, 200)])
def test_many_overlapping_identity_columns_keep_their_intervals_and_the_overview_answers(n_rows, n_columns):
    """Thousands of membership patterns: the bootstrap reweights buckets of rows, so the Overview
    answers with intervals."""
    import time

    from tests.app.helpers import start

    at = start()
    load(at, f"identities_{n_columns}.csv", identity_file(n_rows, n_columns))
    widget(at, "multiselect", "Identity columns").set_value([f"identity_{j}" for j in range(n_columns)]).run()
    widget(at, "multiselect", "Protected attributes").set_value([]).run()
    assert not at.exception
    started = time.perf_counter()
    at.switch_page("pages/overview.py").run(timeout=300)
    print(f"\nOverview with {n_columns} identity columns on {n_rows:,} rows: {time.perf_counter() - started:.1f} s")
    assert not at.exception and not at.error
    assert not [i.value for i in at.info if "membership patterns" in i.value or "Intervals are off" in i.value]
    assert metrics(at)["Subgroups"] == f"{n_columns}"
    # the scorecard draws each rule's interval: error bars on its estimates
    card = next(f for f in figures(at) if any(t.get("error_x") for t in f["data"]))
    bars = [t["error_x"] for t in card["data"] if t.get("error_x")]
    assert bars and all(b.get("array") is not None or b.get("arrayminus") is not None for b in bars)


# Restored values that do not fit their widgets and a review of another file (L2) ---------------------

def test_view_entries_of_the_wrong_type_fall_back_on_every_page():
    from tests.app.helpers import PAGES, start
    from tests.app.review_helpers import restore

    at = start()   # the bundled credit sample
    base = fc.ReviewConfig(mapping=loading.SAMPLES["credit"]["mapping"]).to_dict()
    base["view"] = {"subgroups:order": 5, "auc:full_range": "yes", "intervals:show": "on", "subgroups:min_size": -3,
                    "subgroups:n_bins": "many", "auc:p": "x", "cal:ratio_threshold": "bogus",
                    "rates:metrics": "false_positive_rate", "cal:n_bins": 10 ** 6}
    restore(at, "odd.json", json.dumps(base).encode())
    assert not at.exception, at.exception
    for page in PAGES:
        at.switch_page(page).run()
        assert not at.exception, (page, at.exception)


def test_restoring_the_review_of_another_file_says_so():
    from tests.app.helpers import start
    from tests.app.review_helpers import restore

    at = start()
    config = fc.ReviewConfig(mapping=loading.SAMPLES["credit"]["mapping"],
                             view={"source": {"name": "other.csv", "sha256": "0" * 64}}).to_json().encode()
    restore(at, "other.json", config)
    assert not at.exception
    assert any("not the one the review was made with (its SHA-256 differs)" in t.value for t in at.toast), \
        [t.value for t in at.toast]
