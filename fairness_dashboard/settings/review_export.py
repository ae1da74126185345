"""The review's exports on the Overview: the configuration, and once prepared (built on request, memoized per
configuration) the HTML report, the review's JSON and every table as CSV in a ZIP."""

from __future__ import annotations

import io
import zipfile

import streamlit as st

import fairness_core as fc

from ..data import analysis, loading
from ..presentation import escape
from ..session import progress, state
from ..session.memo import memo
from . import review_config


def _source() -> tuple[dict, bytes | None]:
    """(source facts, bytes to hash) of the current dataset: an upload's SHA-256 is its token."""
    token, name = st.session_state[state.DATASET_TOKEN], st.session_state[state.DATASET_NAME]
    if token.startswith("sample:"):
        return {"name": name}, (loading.SAMPLE_DIR / loading.SAMPLES[token.removeprefix("sample:")]["file"]).read_bytes()
    local_source = st.session_state[state.LOCAL_SOURCE]
    if local_source is not None:   # data on this machine: its files are named, not hashed
        rows = ("every row, counted by DuckDB where it lies" if analysis.counted()
                else f"a random sample of {len(st.session_state[state.FRAME]):,} rows (DuckDB reservoir, seed 0)")
        return {"name": name, "files": len(local_source.files) or 1, "bytes": local_source.n_bytes, "rows": rows}, None
    source = {"name": name, "sha256": token.removeprefix("upload:")}
    if st.session_state[state.DATASET_BYTES] is not None:
        source["bytes"] = int(st.session_state[state.DATASET_BYTES])
    return source, None


@memo(2)
def built_review(token: str, config_json: str, _frame, _config: fc.ReviewConfig, _source: dict,
                 _data: bytes | None) -> fc.Review:
    """``fc.build_review`` of the dataset under the configuration whose JSON is `config_json` (for data counted
    where it lies, ``fc.build_review_from_counts`` of its count tables)."""
    if analysis.counted():
        _, counted = analysis.analyse(_config.mapping)
        return fc.build_review_from_counts(counted.counts, _config, source=_source)
    return fc.build_review(_frame, _config, source=_source, data=_data)


@memo(2)
def export_files(token: str, config_json: str, _review: fc.Review) -> dict:
    """The review's downloads by kind: ``html`` (the report), ``json`` (the review), ``zip`` (every table as CSV)."""
    return {"html": fc.render_report(_review).encode("utf-8"), "json": _review.to_json().encode("utf-8"),
            "zip": tables_zip(_review)}


def tables_zip(review: fc.Review) -> bytes:
    """Every table of `review` as a CSV file (context in ``#`` header lines, formula cells neutralised) in a ZIP.

    File names are ``fc.export_name(dataset, model, table)``; each file's header adds the table, its
    model and the model's threshold to the review's context.
    """
    dataset = review.source.get("name", "data")
    models = sorted(review.models, key=lambda m: -len(m.name))  # the longest name that prefixes a key
    buffer, names = io.BytesIO(), set()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for key, table in review.tables().items():
            model = next((m for m in models if key.startswith(m.name + ".")), None)
            part = key[len(model.name) + 1:] if model else key
            context = {"table": part} | ({"model": model.name, "threshold": model.threshold} if model else {})
            name = fc.export_name(dataset, *([model.name] if model else []), part, suffix="csv")
            stem, n = name[:-4], 2
            while name in names:
                name, n = f"{stem}-{n}.csv", n + 1
            names.add(name)
            archive.writestr(name, fc.table_to_csv(table, context | review.context()))
    return buffer.getvalue()


def export_section() -> None:
    """Overview: downloads of the configuration at once, and of the report, the review's JSON and every table
    (CSV in a ZIP) once the review is prepared (built on request, memoized per configuration)."""
    st.subheader("Export this review")
    try:
        config = review_config.config_from_session()
    except ValueError as exc:
        st.caption(f"Nothing to export yet: {escape.md(exc)}")
        return
    token, dataset = st.session_state[state.DATASET_TOKEN], st.session_state[state.DATASET_NAME]
    config_json = config.to_json()
    source, raw = _source()
    args = (token, config_json, st.session_state[state.FRAME], config, source, raw)
    st.caption("The report is one HTML file that opens offline and prints cleanly: the data summary (file name, "
               "rows, SHA-256), the mapping and every option, the findings and policy verdicts, every chart and "
               "table of every model. The configuration restores this view with the same data file (Data page, "
               "Restore a saved review); this page's link holds it too, never the data.")
    # the buttons side by side while they fit, wrapping (never cut) on a narrow window
    row = st.container(horizontal=True, wrap=True)
    c1, c2, c3, c4 = (row.container(width="content") for _ in range(4))
    c1.download_button("Configuration (JSON)", config_json, file_name=fc.export_name(dataset, "review-config",
                                                                                      suffix="json"),
                       mime="application/json", on_click="ignore", width="content")
    review = built_review.peek(*args)
    slot = c2.empty()  # the button, then the report's download in its place
    if review is None:
        if not slot.button("Prepare the report", type="primary", width="content",
                         help="Computes every model's tables at its threshold with these settings (a few seconds), "
                              "then offers the report, the review's JSON and every table as CSV."):
            return
        try:
            with progress.computing("every table of the review", config.ci):
                review = built_review(*args)
        except ValueError as exc:
            st.error(escape.md(str(exc)))
            return
    with progress.stage("Writing the report, the review's JSON and the tables ..."):
        files = export_files(token, config_json, review)
    slot.download_button("Report (HTML)", files["html"], file_name=fc.export_name(dataset, "review", suffix="html"),
                       mime="text/html", on_click="ignore", width="content", type="primary")
    c3.download_button("Review (JSON)", files["json"], file_name=fc.export_name(dataset, "review", suffix="json"),
                       mime="application/json", on_click="ignore", width="content")
    c4.download_button("Every table (CSV, ZIP)", files["zip"], file_name=fc.export_name(dataset, "tables", suffix="zip"),
                       mime="application/zip", on_click="ignore", width="content")
    st.caption(f"Prepared {review.created} (UTC) with these settings; a change of any setting asks to prepare it "
               "again.")
