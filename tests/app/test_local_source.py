# More than 500 lines: one concept (data on this machine, counted where it lies, against an upload of the same rows, page by page).
"""AppTest of "Data on this machine": a generated 250,000-row Parquet folder, counted by DuckDB where it
lies, shows on every page the same numbers as an upload of the same rows; binned AUCs lie within their bound;
pages that need the rows say so and a random sample works on every page; paths outside the allowed directories,
a switched-off server and unreadable files get messages."""

import base64
import io

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.app.helpers import PAGES, ROOT, each_section, figures, metrics, open_section, scored_table, widget
from fairness_dashboard import local_paths
from fairness_dashboard.data import local
from fairness_dashboard.presentation import formats, labels

# Rows of the generated folder. What is checked does not depend on their number (counted where they lie or uploaded,
# the same rows give the same numbers; the bounds on distinct scores are patched lower), except that the random sample
# of local.SAMPLE_ROWS (100,000) rows must be a sample of more rows (asserted in `folder`): 2.5 times as many. With
# 10^6 rows, generating, uploading and counting them took about 10 of this module's 61 CPU-seconds more.
N_ROWS = 250_000
FILES = "Parquet or CSV files: a path, a folder or a glob"
APPLY = "Apply mapping"


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """(root, frame): the generated rows in four Parquet files under root/logs."""
    assert N_ROWS > local.SAMPLE_ROWS   # the sample of test_pages_that_need_rows_... is a sample of the rows
    root = tmp_path_factory.mktemp("local")
    (root / "logs").mkdir()
    frame = scored_table(N_ROWS, seed=12)
    for i, rows in enumerate(np.array_split(np.arange(N_ROWS), 4)):
        frame.iloc[rows].to_parquet(root / "logs" / f"part-{i}.parquet", index=False)
    return root, frame


def _start(monkeypatch, root) -> AppTest:
    monkeypatch.setenv(local_paths.ENV, str(root))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.run()
    return at


def _open_local(at: AppTest, pattern: str, auc: str = "exact") -> AppTest:
    widget(at, "radio", "Source").set_value("local").run()
    widget(at, "text_input", FILES).set_value(pattern).run()
    if not at.error:
        widget(at, "radio", "AUC score levels").set_value(auc).run()
    return at


def _opened(monkeypatch, root, name: str, source: str) -> AppTest:
    """An app with the file `name` under `root` counted where it lies (``source="local"``) or uploaded."""
    at = _start(monkeypatch, root)
    if source == "local":
        return _open_local(at, name)
    widget(at, "radio", "Source").set_value("upload").run()
    at.file_uploader[0].set_value((name, (root / name).read_bytes(), "application/octet-stream")).run()
    return at


def _map(at: AppTest, protected=("race", "sex")) -> None:
    widget(at, "selectbox", labels.LABEL_COLUMN).set_value("label").run()
    widget(at, "multiselect", labels.PROTECTED).set_value(list(protected)).run()
    widget(at, "multiselect", labels.SCORE_COLUMN).set_value(["score_a", "score_b"]).run()
    _apply(at)
    assert not at.exception and not at.error, [e.value for e in at.error]


def _apply(at: AppTest) -> AppTest:
    """Press "Apply mapping" when the Data page shows it (data counted where it lies: edits wait for it)."""
    for button in at.button:
        if button.label == APPLY:
            button.click().run()
            break
    return at


def _visit_one(at: AppTest, page: str) -> tuple:
    at.switch_page(page).run()
    assert not at.exception and not at.error, (page, [e.value for e in at.error])
    return metrics(at), [d.value for d in at.dataframe]


def _visit(at: AppTest) -> dict:
    """Per page: (tiles, tables, charts) as shown, in each of its secondary sections."""
    shown = {}
    for page in PAGES:
        tiles, tables, charts = {}, [], []
        at.switch_page(page).run()
        for section in each_section(at, page):   # every secondary section opened in turn
            assert not at.exception, (page, section, at.exception)
            assert not at.error, (page, section, [e.value for e in at.error])
            tiles |= metrics(at)
            tables += [d.value for d in at.dataframe]
            charts += figures(at)
        shown[page] = (tiles, tables, charts)
    return shown


def _close(a, b) -> bool:
    """Equal structures, numbers to 1e-12 relative (sums of scores differ in their order of summation)."""
    if isinstance(a, dict) and "bdata" in a:   # Plotly's binary arrays
        return isinstance(b, dict) and "bdata" in b and a.get("dtype") == b.get("dtype") and np.allclose(
            *(np.frombuffer(base64.b64decode(x["bdata"]), dtype=x["dtype"]) for x in (a, b)), rtol=1e-12, atol=1e-12,
            equal_nan=True)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, (int, float)):
        return a == pytest.approx(b, rel=1e-12, abs=1e-12, nan_ok=True)
    return a == b


def _differences(a, b, path: str = "") -> list:
    """Where two structures differ (for a failure message)."""
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return [f"{path}: keys {sorted(set(a) ^ set(b))}"]
        return [d for k in a for d in _differences(a[k], b[k], f"{path}/{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in _differences(x, y, f"{path}[{i}]")]
    return [] if _close(a, b) else [f"{path}: {a!r:.60} != {b!r:.60}"]


def _same_table(table: pd.DataFrame, candidates: list) -> bool:
    """Whether some candidate holds `table`'s columns (but the AUCs' max binning errors) with the same values."""
    columns = [c for c in table.columns if not c.endswith("max_binning_error")]
    for other in candidates:
        if not set(columns) <= set(other.columns) or len(other) != len(table):
            continue
        try:
            pd.testing.assert_frame_equal(table[columns].reset_index(drop=True), other[columns].reset_index(drop=True),
                                          check_dtype=False, rtol=1e-12, atol=1e-12)
            return True
        except AssertionError:
            continue
    return False


def test_local_parquet_folder_equals_an_upload_on_every_page(folder, monkeypatch):
    root, frame = folder
    counted = _open_local(_start(monkeypatch, root), "logs")
    assert not counted.exception and not counted.error, [e.value for e in counted.error]
    assert any("4 files" in c.value and "every row counted by DuckDB" in c.value for c in counted.caption)
    _map(counted, ("race", "sex", "age"))   # age: a numeric attribute cut into quantile bins by the engine
    assert widget(counted, "selectbox", labels.PREDICTED_COLUMN).value == "approved"   # the guess, counted too
    assert any(name.startswith("race=Asian, sex=Female, age=[18, ") for name in counted.dataframe[0].value["subgroup"])
    widget(counted, "checkbox", labels.SHOW_INTERVALS).set_value(False).run()   # intervals: the test below
    counted.session_state["keep:cal:strategy"] = "quantile"   # found by the engine from the distinct scores
    counted.session_state["keep:rates:per_subgroup"] = True   # the per-subgroup thresholds' table too
    local_pages = _visit(counted)

    upload = _start(monkeypatch, root)
    widget(upload, "radio", "Source").set_value("upload").run()
    buffer = io.BytesIO()
    frame.to_parquet(buffer, index=False)
    upload.file_uploader[0].set_value(("rows.parquet", buffer.getvalue(), "application/octet-stream")).run()
    _map(upload, ("race", "sex", "age"))
    widget(upload, "checkbox", labels.SHOW_INTERVALS).set_value(False).run()   # intervals: the test below
    upload.session_state["keep:rates:per_subgroup"] = True
    upload.session_state["keep:cal:strategy"] = "quantile"
    upload_pages = _visit(upload)

    for page in PAGES:
        tiles, tables, charts = local_pages[page]
        their_tiles, their_tables, their_charts = upload_pages[page]
        assert tiles == {k: their_tiles[k] for k in tiles}, page   # every tile shown is the upload's
        for table in tables:
            assert _same_table(table, their_tables), (page, list(table.columns))
        for chart in charts:   # every chart (the explorer's curves included) draws the upload's numbers
            same_title = [c for c in their_charts if c["layout"].get("title") == chart["layout"].get("title")]
            assert any(_close(chart, theirs) for theirs in their_charts), (page, chart["layout"].get("title"), [
                _differences(chart, theirs)[:5] for theirs in same_title])
    assert {c["layout"]["title"]["text"] for c in local_pages["pages/rate_disparities.py"][2]} >= {
        "Rates per subgroup", "Rates across thresholds", "Each subgroup against the rest"}   # rates, explorer, p% scores
    # what was compared: the numbers of every page
    assert local_pages["pages/overview.py"][0]["Rows analysed"] == f"{N_ROWS:,}"
    assert local_pages["pages/subgroup_aucs.py"][0]["Overall AUC"] == upload_pages["pages/subgroup_aucs.py"][0][
        "Overall AUC"]
    assert {"Equalized odds (max)", "Theil index (max)", "p% score (min)"} <= set(local_pages[
        "pages/rate_disparities.py"][0])
    assert "ECE disparity (max)" in local_pages["pages/calibration.py"][0]
    assert local_pages["pages/classwise.py"][0]["Classes used"] == "2 of 2"
    assert {"Base-rate disparity (max)", "Smoothed EDF (ε)"} <= set(local_pages["pages/dataset_metrics.py"][0])
    assert sum(len(t) for _, tables, _ in local_pages.values() for t in tables) > 100

    # the predicted label column's predictions (counted by one more GROUP BY) on the pages that use them
    for at in (counted, upload):
        at.session_state["keep:predictions:source"] = "given"
    for page in ("pages/rate_disparities.py", "pages/classwise.py", "pages/overview.py"):
        given = [_visit_one(at, page) for at in (counted, upload)]
        assert given[0][0] == {k: given[1][0][k] for k in given[0][0]}, page
        for table in given[0][1]:
            assert _same_table(table, given[1][1]), (page, list(table.columns))
    counted.switch_page("pages/rate_disparities.py").run()
    assert widget(counted, "radio", "Predictions from").value == "given"
    assert "Decision threshold" not in [n.label for n in counted.number_input]

    # binned AUC levels: every AUC within its reported bound of the exact one
    exact = local_pages["pages/subgroup_aucs.py"][1]
    counted.switch_page("pages/data.py").run()
    widget(counted, "radio", "AUC score levels").set_value("bins").run()
    counted.switch_page("pages/subgroup_aucs.py").run()
    binned = next(t for t in (d.value for d in counted.dataframe) if "subgroup_auc_max_binning_error" in t.columns)
    exact_table = next(t for t in exact if "subgroup_auc" in t.columns)
    for column in ("subgroup_auc", "bpsn_auc", "bnsp_auc"):
        both = binned.merge(exact_table[["subgroup", column]], on="subgroup", suffixes=("", "_exact"))
        bound = both[f"{column}_max_binning_error"]
        assert (np.abs(both[column] - both[f"{column}_exact"]) <= bound + 1e-12).all()
        assert (bound > 0).all()   # reported, though 4-decimal scores fall one distinct value per bin here


def test_intervals_of_data_counted_where_it_lies_equal_an_upload_s(monkeypatch, tmp_path):
    """Intervals on (the default): DuckDB counts the bootstrap's atoms, so every page shows the upload's intervals
    (the same seed resamples the same counts per membership pattern), with overlapping identity columns."""
    rows = scored_table(40_000, seed=9)
    rng = np.random.default_rng(9)
    rows["young"] = (rows["age"] < 30).astype(float)
    rows["renter"] = np.where(rng.random(len(rows)) < 0.02, np.nan, (rng.random(len(rows)) < 0.4).astype(float))
    rows.to_parquet(tmp_path / "rows.parquet", index=False)
    shown = []
    for source in ("local", "upload"):
        at = _opened(monkeypatch, tmp_path, "rows.parquet", source)
        _map(at, ("race",))
        _apply(widget(at, "multiselect", labels.IDENTITY).set_value(["young", "renter"]).run())
        assert not at.exception and not at.error, [e.value for e in at.error]
        assert widget(at, "checkbox", labels.SHOW_INTERVALS).value
        shown.append(_visit(at))
    counted, upload = shown
    for page in PAGES:
        (tiles, tables, charts), (their_tiles, their_tables, their_charts) = counted[page], upload[page]
        assert tiles == {k: their_tiles[k] for k in tiles}, page
        for table in tables:
            assert _same_table(table, their_tables), (page, list(table.columns))
        for chart in charts:   # error bars included
            assert any(_close(chart, theirs) for theirs in their_charts), (page, chart["layout"].get("title"))
    intervals = [c for _, tables, _ in counted.values() for t in tables for c in t.columns if c.endswith("ci_low")]
    assert {"subgroup_auc_ci_low", "l2_ece_ci_low"} <= set(intervals) and len(intervals) > 10


def test_membership_patterns_over_the_bound_get_intervals_from_per_bucket_tables(monkeypatch, tmp_path):
    """Past the bound on membership patterns the engine counts per-bucket tables: the page still shows intervals,
    and no message about patterns."""
    rows = scored_table(5_000, seed=3)
    rows.to_parquet(tmp_path / "rows.parquet", index=False)
    monkeypatch.setattr(local, "MAX_PATTERNS", 3)   # race x sex: 8 patterns
    at = _open_local(_start(monkeypatch, tmp_path), "rows.parquet")
    _map(at)
    at.switch_page("pages/rate_disparities.py").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert not any("patterns, more than" in i.value.replace("\\", "") for i in at.info)
    assert any(c.endswith("ci_low") for d in at.dataframe for c in d.value.columns)   # intervals
    assert metrics(at)   # the tiles are drawn


def test_weighted_rows_over_the_bound_get_intervals_from_per_bucket_tables(monkeypatch, tmp_path):
    """Weighted rows past the bound: per-bucket sums of weights give the rates and calibration their intervals, every
    page draws without an error, and each says which interval the counts cannot give (the bias AUC score's)."""
    rows = scored_table(5_000, seed=5)
    rows["weight"] = np.random.default_rng(5).uniform(0.5, 2.0, len(rows)).round(3)
    rows.to_parquet(tmp_path / "rows.parquet", index=False)
    monkeypatch.setattr(local, "MAX_PATTERNS", 3)   # race x sex: 8 patterns
    at = _open_local(_start(monkeypatch, tmp_path), "rows.parquet")
    widget(at, "selectbox", labels.WEIGHT_COLUMN).set_value("weight").run()
    _map(at)
    for page in ("pages/rate_disparities.py", "pages/calibration.py", "pages/subgroup_aucs.py"):
        at.switch_page(page).run()
        assert not at.exception and not at.error, (page, [e.value for e in at.error])
        assert metrics(at), page   # the tiles are drawn
        assert any(c.endswith("ci_low") for d in at.dataframe for c in d.value.columns), page   # intervals
        said = [i.value.replace("\\", "") for i in at.info if "Not computed for these counts" in i.value]
        assert len(said) == 1 and "the bias AUC score's interval: the weighted rows have 8 membership patterns" in said[0]


def test_a_protected_attribute_edit_counts_each_score_once_and_no_pattern_again(monkeypatch, tmp_path):
    """A mapping edit on data counted where it lies, intervals on: per score one GROUP BY by score level and one by
    calibration bin, and no pattern query (without identity columns the bootstrap's atoms are summed from those
    queries' rows)."""
    from fairness_core.engines import _scored_counts

    scored_table(5_000, seed=4).to_parquet(tmp_path / "rows.parquet", index=False)
    at = _open_local(_start(monkeypatch, tmp_path), "rows.parquet", auc="bins")
    _map(at, ("race", "sex", "age"))
    seen, real = [], _scored_counts._runner

    def counting(*args, **kwargs):
        run, columns, name = real(*args, **kwargs)
        return (lambda sql: seen.append(sql) or run(sql)), columns, name

    monkeypatch.setattr(_scored_counts, "_runner", counting)
    _apply(widget(at, "multiselect", labels.PROTECTED).set_value(["race", "sex"]).run())
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert widget(at, "checkbox", labels.SHOW_INTERVALS).value
    assert len([q for q in seen if "__fc_kept" in q]) == 2 * 2   # score_a and score_b: levels, calibration bins
    assert not any("__fc_cells" in q or "__fc_keys" in q for q in seen)   # no pattern query, no pattern count


def test_pages_that_need_rows_say_so_and_a_sample_works_everywhere(folder, monkeypatch):
    root, _ = folder
    at = _open_local(_start(monkeypatch, root), "logs/*.parquet", auc="bins")
    _map(at)
    open_section(at, "rates:section", "Correlation", run=False)
    at.switch_page("pages/rate_disparities.py").run()
    needs = [i.value for i in at.info if "needs the rows themselves" in i.value]
    assert any(v.startswith("The correlation score") for v in needs)
    open_section(at, "rates:section", "Threshold explorer")
    # the explorer runs over the binned counts' edges; per-subgroup thresholds need thresholds on edges
    assert "Threshold explorer" in [s.value for s in at.subheader] and len(at.get("plotly_chart")) == 2   # rates, explorer
    assert any("lies inside a bin" in c.value for c in at.caption)
    widget(at, "toggle", "Per-subgroup thresholds").set_value(True).run()
    assert any("lies inside a score bin" in i.value.replace("\\", "") for i in at.info)
    at.switch_page("pages/data.py").run()   # exact levels read every threshold: per-subgroup thresholds work
    widget(at, "radio", "AUC score levels").set_value("exact").run()
    at.switch_page("pages/rate_disparities.py").run()
    assert not at.exception and not at.error
    assert any(d.value.columns[:2].tolist() == ["subgroup", "threshold"] for d in at.dataframe)
    assert all("random sample of 100,000 rows" in v for v in needs)
    at.switch_page("pages/data.py").run()
    widget(at, "radio", "Rows analysed").set_value("sample").run()
    assert not at.exception and not at.error
    assert metrics(at)["Rows in file"] == "100,000"
    for page in PAGES:
        at.switch_page(page).run()
        assert not at.exception and not at.error, (page, [e.value for e in at.error])
        for section in each_section(at, page):
            assert not [i.value for i in at.info if "needs the rows themselves" in i.value], (page, section)
        if page == "pages/rate_disparities.py":   # the explorer, intervals and the correlation work on the sample
            open_section(at, "rates:section", "Threshold explorer")
            assert "Threshold explorer" in [s.value for s in at.subheader]
            assert any("% CI" in c.value for c in at.caption)
            open_section(at, "rates:section", "Correlation")
            assert any(m.label.startswith("Correlation score") for m in at.metric)


def test_paths_outside_the_allowed_directories_are_refused(folder, monkeypatch, tmp_path):
    root, _ = folder
    outside = tmp_path / "secret.csv"
    outside.write_text("label,score\n1,0.5\n")
    (root / "link.csv").symlink_to(outside)
    at = _open_local(_start(monkeypatch, root), str(outside))
    assert any("outside the directories this server may read" in e.value for e in at.error) or \
        any("No Parquet or CSV file matches" in e.value for e in at.error)
    widget(at, "text_input", FILES).set_value("link.csv").run()
    assert any("outside the directories" in e.value for e in at.error), [e.value for e in at.error]
    widget(at, "text_input", FILES).set_value("../*.csv").run()
    assert at.error and not at.exception
    (root / "link.csv").unlink()


def test_the_source_is_offered_only_when_the_server_names_its_directories(monkeypatch):
    monkeypatch.delenv(local_paths.ENV, raising=False)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    assert "local" not in widget(at, "radio", "Source").options
    with pytest.raises(ValueError, match=local_paths.ENV):
        local.LocalSource.from_files("anything.parquet")


def test_without_duckdb_the_source_is_not_offered_and_the_page_says_what_to_install(monkeypatch, tmp_path):
    import importlib.util

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "duckdb" else find_spec(name, *a))
    at = _start(monkeypatch, tmp_path)
    assert not at.exception and "local" not in widget(at, "radio", "Source").options
    assert any("needs duckdb" in c.value and "pip install duckdb" in c.value for c in at.caption)


def test_an_unreadable_file_gets_duckdb_s_reason(monkeypatch, tmp_path):
    (tmp_path / "broken.parquet").write_bytes(b"not a parquet file")
    at = _open_local(_start(monkeypatch, tmp_path), "broken.parquet")
    assert not at.exception
    assert any("DuckDB could not read the rows of 'broken.parquet'" in e.value.replace("\\", "") for e in at.error)


def test_a_duckdb_table_is_counted_and_its_views_cannot_read_other_files(monkeypatch, tmp_path):
    import duckdb

    rows = scored_table(20_000, seed=3)
    outside = tmp_path / "outside.csv"
    rows.head(100).to_csv(outside, index=False)
    root = tmp_path / "root"
    root.mkdir()
    con = duckdb.connect(str(root / "warehouse.duckdb"))
    con.execute("CREATE TABLE scores AS SELECT * FROM rows")
    con.execute(f"CREATE VIEW sneaky AS SELECT * FROM read_csv('{outside}')")
    con.close()
    at = _start(monkeypatch, root)
    widget(at, "radio", "Source").set_value("local").run()
    widget(at, "radio", "Read").set_value("duckdb").run()
    widget(at, "text_input", "DuckDB database file").set_value("warehouse.duckdb").run()
    assert widget(at, "selectbox", "Table or view").options == ["scores", "sneaky"]
    widget(at, "selectbox", "Table or view").set_value("scores").run()
    _map(at)
    shown = metrics(at)
    assert shown["Rows in file"] == "20,000"
    assert shown["Base rate (share positive)"] == formats.tile(rows["label"].mean())
    groups = at.dataframe[0].value
    assert sorted(groups["size"]) == sorted(rows.groupby(["race", "sex"]).size())
    # the export of a review counted where the data lies
    at.switch_page("pages/overview.py").run()
    next(b for b in at.button if b.label == "Prepare the report").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert [b.label for b in at.get("download_button")][:2] == ["Configuration (JSON)", "Report (HTML)"]
    # a view that reads a file elsewhere fails with DuckDB's reason, not a trace
    at.switch_page("pages/data.py").run()
    widget(at, "selectbox", "Table or view").set_value("sneaky").run()
    assert not at.exception
    assert any("DuckDB could not read the rows" in e.value.replace("\\", "") for e in at.error), \
        [e.value for e in at.error]


def test_a_multi_class_label_counted_where_it_lies_equals_an_upload(monkeypatch, tmp_path):
    rng = np.random.default_rng(6)
    rows = scored_table(30_000, seed=6)
    rows["grade"] = rng.choice(["A", "B", "C", "D"], len(rows), p=[0.4, 0.3, 0.2, 0.1])
    rows["grade_hat"] = np.where(rng.random(len(rows)) < 0.7, rows["grade"], rng.choice(["A", "B", "C"], len(rows)))
    rows = rows.drop(columns=["label", "approved"])
    rows.to_parquet(tmp_path / "grades.parquet", index=False)
    shown = []
    for source in ("local", "upload"):
        at = _opened(monkeypatch, tmp_path, "grades.parquet", source)
        widget(at, "selectbox", labels.LABEL_COLUMN).set_value("grade").run()
        widget(at, "selectbox", labels.POSITIVE_LABEL).set_value("A").run()
        widget(at, "checkbox", labels.KEEP_ALL_CLASSES).set_value(True).run()
        widget(at, "selectbox", labels.PREDICTED_COLUMN).set_value("grade_hat").run()
        _apply(widget(at, "multiselect", labels.PROTECTED).set_value(["race", "sex"]).run())
        assert not at.exception and not at.error, [e.value for e in at.error]
        markdown = [m.value for m in at.markdown if "classes" in m.value]
        shown.append((markdown, _visit_one(at, "pages/classwise.py"), _visit_one(at, "pages/overview.py")))
    (local_md, *local_pages), (upload_md, *upload_pages) = shown
    assert local_md == upload_md and "4 classes" in local_md[0]
    for (tiles, tables), (their_tiles, their_tables) in zip(local_pages, upload_pages):
        assert tiles == {k: their_tiles[k] for k in tiles}
        for table in tables:
            assert _same_table(table, their_tables), list(table.columns)
    assert local_pages[0][0]["Classes used"] == "4 of 4"


def test_quantile_bins_of_too_many_distinct_scores_get_a_message(folder, monkeypatch):
    import fairness_core.engines._scored_counts as engines

    root, _ = folder
    monkeypatch.setattr(engines, "MAX_HISTOGRAM", 100)
    at = _open_local(_start(monkeypatch, root), "logs", auc="bins")
    _map(at)
    at.session_state["keep:cal:strategy"] = "quantile"
    at.switch_page("pages/calibration.py").run()
    assert not at.exception
    assert any("Quantile calibration bins of 'score_a' need its distinct scores" in w.value.replace("\\", "")
               for w in at.warning), [w.value for w in at.warning]
    at.switch_page("pages/overview.py").run()
    assert not at.exception and not at.error


def test_exact_levels_of_too_many_distinct_scores_get_a_message(folder, monkeypatch):
    root, _ = folder
    monkeypatch.setattr(local, "MAX_EXACT_LEVELS", 10)
    at = _open_local(_start(monkeypatch, root), "logs", auc="exact")
    assert not at.exception
    assert any("Exact AUC levels of 'score_a' would keep each of its" in e.value.replace("\\", "") for e in at.error)
    widget(at, "radio", "AUC score levels").set_value("bins").run()   # back to bins: the pages work
    assert not at.exception and not at.error


def test_files_rewritten_after_counting_are_read_again(monkeypatch, tmp_path):
    rows = scored_table(5_000, seed=9)
    (tmp_path / "logs").mkdir()
    rows.to_parquet(tmp_path / "logs" / "a.parquet", index=False)
    at = _open_local(_start(monkeypatch, tmp_path), "logs", auc="bins")
    _map(at)
    assert metrics(at)["Rows in file"] == "5,000"
    rows.head(3_000).to_parquet(tmp_path / "logs" / "b.parquet", index=False)   # a file added since
    at.switch_page("pages/rate_disparities.py").run()
    assert not at.exception
    assert any("changed since they were read" in w.value for w in at.warning) and not at.dataframe
    at.switch_page("pages/data.py").run()   # read again: the new file's rows are counted
    assert not at.exception and metrics(at)["Rows in file"] == "8,000"
    at.switch_page("pages/rate_disparities.py").run()
    assert not at.exception and not at.warning and at.dataframe


def _mapping():
    import fairness_core as fc

    return fc.ColumnMapping(label="label", positive_label=1, scores=("score_a",), protected=("race", "sex"))


def _counted_rows(source: local.LocalSource) -> tuple:
    """(rows counted, rows of the preview) of `source`, through the app's own calls."""
    counted = local.counts(source, _mapping(), 100)
    return counted.n_input, len(local.rows_of(source, local.PREVIEW_ROWS, sample=False))


def test_files_with_glob_characters_are_read_as_checked(monkeypatch, tmp_path):
    """H4: 'a1.parquet' (100 rows) and 'a[1].parquet' (300) are 400 rows, not 'a1.parquet' twice; names with '*'
    and '?' are read as named. H3: the folder 'lin[k]_out' beside a link 'link_out' to a folder outside: its own
    file is read, never the one outside."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "names").mkdir(parents=True)
    (root / "lin[k]_out").mkdir()
    outside.mkdir()
    sizes = {"a1.parquet": 100, "a[1].parquet": 300, "b*.parquet": 70, "bz.parquet": 110, "c?.parquet": 50}
    for i, (name, n) in enumerate(sizes.items()):
        scored_table(n, seed=i).to_parquet(root / "names" / name, index=False)
    scored_table(40, seed=7).to_parquet(root / "lin[k]_out" / "x.parquet", index=False)
    scored_table(900, seed=8).to_parquet(outside / "x.parquet", index=False)
    (root / "link_out").symlink_to(outside, target_is_directory=True)
    monkeypatch.setenv(local_paths.ENV, str(root))

    source = local.LocalSource.from_files("names")
    assert [f.rsplit("/", 1)[1] for f in source.files] == sorted(sizes)
    assert _counted_rows(source) == (630, 630)
    assert _counted_rows(local.LocalSource.from_files("names/a*.parquet")) == (400, 400)
    assert _counted_rows(local.LocalSource.from_files("names/[b]*.parquet")) == (180, 180)

    linked = local.LocalSource.from_files("lin[k]_out")
    assert linked.files == (str(root / "lin[k]_out" / "x.parquet"),)
    assert _counted_rows(linked) == (40, 40)
    assert _counted_rows(local.LocalSource.from_files("lin[[]k]_out/x.parquet")) == (40, 40)   # escaped by the user
    with pytest.raises(ValueError, match="link_out/x.parquet' lies outside the directories this server may read"):
        local.LocalSource.from_files("lin[k]_out/x.parquet")   # a glob: it matches the link, checked and refused


def test_csv_files_are_combined_by_column_name_and_other_columns_get_a_message(monkeypatch, tmp_path):
    """H5: p1.csv and p2.csv with race and sex in another order are counted by column name, as pandas concatenates
    them; a file with other columns gets a message on the Data page, not a trace."""
    first, second = scored_table(3_000, seed=1), scored_table(2_000, seed=2)
    (tmp_path / "logs").mkdir()
    first.to_csv(tmp_path / "logs" / "p1.csv", index=False)
    columns = list(second.columns)
    i, j = columns.index("race"), columns.index("sex")
    columns[i], columns[j] = columns[j], columns[i]
    second[columns].to_csv(tmp_path / "logs" / "p2.csv", index=False)
    at = _open_local(_start(monkeypatch, tmp_path), "logs/*.csv")
    _map(at)
    assert metrics(at)["Rows in file"] == "5,000"
    both = pd.concat([first, second], ignore_index=True)
    shown = at.dataframe[0].value.set_index("subgroup")["size"].to_dict()
    assert shown == {f"race={r}, sex={s}": n for (r, s), n in both.groupby(["race", "sex"]).size().items()}

    second.rename(columns={"sex": "gender"}).to_csv(tmp_path / "logs" / "p2.csv", index=False)
    widget(at, "text_input", FILES).set_value("logs/p?.csv").run()
    assert not at.exception
    shown = [e.value.replace("\\", "") for e in at.error]
    assert any("The files read together do not have the same columns: " in e and "p2.csv' has 'gender' and lacks "
               "'sex' compared with " in e and "Tip: give files with the same column names" in e for e in shown), shown
