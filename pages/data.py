"""Data: load a file or a sample, map its columns, and see what will be analysed."""

from dataclasses import replace

import pandas as pd
import streamlit as st

import fairness_core as fc
from fairness_core import plotting
from fairness_dashboard import local_paths
from fairness_dashboard.data import analysis, loading, local, profiling
from fairness_dashboard.presentation import captions, escape, formats, labels, tiles
from fairness_dashboard.results import computations
from fairness_dashboard.session import progress, state
from fairness_dashboard.settings import controls, page_frame, review_restore, review_url

LOCAL_KINDS = {"files": "Parquet or CSV files", "duckdb": "A DuckDB table"}
ROWS_ANALYSED = {"counts": "Every row (counted where it lies)", "sample": f"A random sample of {local.SAMPLE_ROWS:,} rows"}
BOOLEAN_DTYPES = ("bool", "boolean")   # pandas' and its nullable boolean dtype (a column profile's "dtype")
APPLY = "Apply mapping"
AUC_LEVEL_LABELS = {"bins": f"{local.AUC_LEVELS['bins']:,} score bins (bounded error)",
                    "exact": "Exact (one level per distinct score)"}


def _use_weight(name: str, column: str) -> None:
    """The proposed weight column's button: choose `column` in the Sample weights box kept under `name`."""
    st.session_state[state.KEEP_PREFIX + name] = st.session_state["w:" + name] = column


def _local_source() -> local.LocalSource:
    """The "Data on this machine" widgets: files (a path, folder or glob) or a DuckDB table; the source they name,
    or stop the page saying what to give or what is wrong."""
    kind = controls.kept(st.radio, "Read", "local:kind", "files", options=list(LOCAL_KINDS),
                         format_func=LOCAL_KINDS.get, horizontal=True)
    st.caption("Paths are relative to " + " or ".join(escape.md(r) for r in local_paths.roots())
               + " (the directories this server may read).")
    try:
        if kind == "files":
            pattern = controls.kept(st.text_input, "Parquet or CSV files: a path, a folder or a glob", "local:pattern",
                                    "", placeholder="logs/*.parquet")
            if not pattern.strip():
                st.info("Give the files to analyse. They are read by DuckDB where they lie: only their first rows "
                        "(for the column mapping) and the count tables enter this server's memory.")
                st.stop()
            return local.LocalSource.from_files(pattern)
        database = controls.kept(st.text_input, "DuckDB database file", "local:database", "",
                                 placeholder="warehouse.duckdb")
        if not database.strip():
            st.info("Give the DuckDB database file; then choose one of its tables or views.")
            st.stop()
        real = local.LocalSource.database_file(database)
        tables = local.tables_of(real)
        table = controls.kept(st.selectbox, "Table or view", f"local:table:{real}", tables[0], options=tables)
        return local.LocalSource.from_table(real, table)
    except ValueError as exc:
        st.error(escape.md(str(exc)))
        st.stop()


def _pending(mapping: fc.ColumnMapping) -> fc.ColumnMapping:
    """The mapping to count on data counted where it lies: the one applied last (``state.MAPPING``, the first guess
    when the source was read) until :data:`APPLY` is pressed; an edit of the widgets above is only said, with the
    button and one to discard it, so that several edits cost one count. Stops the page when nothing is applied."""
    applied = st.session_state[state.MAPPING]
    if st.session_state.pop(local.FIRST_MAPPING, False) or not local.recounts(applied, mapping):
        return mapping   # the source was just read (its first guess, as the widgets show it), or nothing to count
    with st.container(border=True):
        changes = local.mapping_changes(applied, mapping)
        st.markdown("**Mapping not applied yet**" + (": " + "; ".join(changes) if changes else "") + ".")
        st.caption("Each applied mapping counts every row where it lies, so edits wait here: make them all, then "
                   "apply them at once (one count). "
                   + ("The pages show the mapping applied last." if applied is not None else
                      "Nothing is counted yet."))
        c1, c2, _ = st.columns([1, 1, 3])
        if c1.button(APPLY, type="primary", help="Count every row with the mapping above (one scan per score column)."):
            return mapping
        if applied is not None:
            c2.button("Discard the edits", on_click=_discard, help="Set the widgets back to the mapping applied last.")
    if applied is None:
        st.stop()
    return applied


def _discard() -> None:
    """Forget the mapping widgets' kept values, so they are drawn again from the applied mapping."""
    prefix = f"map:{st.session_state[state.DATASET_TOKEN]}:"
    for name in [k for k in st.session_state if str(k).startswith((state.KEEP_PREFIX + prefix, "w:" + prefix))]:
        del st.session_state[name]


def _label_words(seed: fc.ColumnMapping, key: str, label: str, positive, values: list, outcome: str) -> dict:
    """The two optional text boxes of words for the predictions (e.g. "denied" / "approved"), kept per label and
    positive value and seeded from the mapping (a restored configuration's words); the words by the label value as
    text (``ColumnMapping.label_words``), the negative one only for a label with two values."""
    seeded = dict(seed.label_words) if label == seed.label else {}   # by value: they hold whichever value is positive
    phrases = fc.outcome_phrases(label, positive, outcome)
    others = [v for v in values if v != positive]
    other = others[0] if len(others) == 1 else None
    w1, w2 = st.columns(2)
    words = {}
    for box, value, placeholder, title, side in (
            (w1, positive, phrases.predicted_positive, labels.WORD_POSITIVE, "positive"),
            (w2, other, phrases.predicted_negative, labels.WORD_NEGATIVE, "negative")):
        text_key = str(value) if value is not None else None
        word = controls.kept(box.text_input, title, f"{key}words:{label}:{positive}:{side}",
                             seeded.get(text_key, ""), placeholder=f"as written: {placeholder}",
                             max_chars=fc.CONFIG_BOUNDS["label_words"][1], disabled=value is None,
                             help=labels.HELP[title])
        if value is not None and word.strip():
            words[text_key] = word
    return words


def _file_line() -> str:
    """'credit.csv: 6,000 rows, 12 columns, 512.0 KB' for the loaded dataset (Markdown-safe)."""
    frame_, token_ = st.session_state[state.FRAME], st.session_state[state.DATASET_TOKEN]
    local_source = st.session_state[state.LOCAL_SOURCE]
    if local_source is not None:
        files = f"{len(local_source.files):,} file{'s' if len(local_source.files) != 1 else ''}, " \
            if local_source.files else ""
        rows = ("every row counted by DuckDB where it lies" if analysis.counted()
                else f"a random sample of {len(frame_):,} rows in memory")
        return (f"{escape.md(local_source.label)}: {files}{loading.size_text(local_source.n_bytes)} on disk, "
                f"{frame_.shape[1]:,} columns; {rows}")
    if token_.startswith("sample:"):
        n_bytes = (loading.SAMPLE_DIR / loading.SAMPLES[token_.removeprefix("sample:")]["file"]).stat().st_size
    else:
        n_bytes = st.session_state[state.DATASET_BYTES]
    size = f", {loading.size_text(n_bytes)}" if n_bytes is not None else ""
    name = escape.md(st.session_state[state.DATASET_NAME])
    return f"{name}: {len(frame_):,} rows, {frame_.shape[1]:,} columns{size}"


sidebar = page_frame.draw()
st.title("Data")

# 1. Source -------------------------------------------------------------------------------
st.subheader("Load data")
local_ready = bool(local_paths.roots()) and not local.missing_packages()   # the server allows it and can read
sources = [*loading.SAMPLES, "upload", *(["local"] if local_ready else [])]
current_token = st.session_state[state.DATASET_TOKEN] or ""
current_source = ("local" if st.session_state[state.LOCAL_SOURCE] is not None else
                  "upload" if current_token.startswith("upload:") else loading.DEFAULT_SAMPLE)
source = controls.kept(
    st.radio, "Source", "data:source", current_source, options=sources,
    format_func=lambda k: loading.SAMPLES[k]["title"] if k in loading.SAMPLES else
    {"upload": "Upload a file", "local": "Data on this machine"}[k], horizontal=True)
review_restore.waiting_notice()  # a restored review's settings waiting for their data
if local_ready and local_paths.served_to_others(st.get_option("server.address")):
    st.warning(local_paths.SERVED_TO_OTHERS.format(address=escape.md(st.get_option("server.address") or "every interface"),
                                             roots=" and ".join(escape.md(r) for r in local_paths.roots())))
if local_paths.roots() and local.missing_packages():
    st.caption(f"Data on this machine is configured but needs {' and '.join(local.missing_packages())}: "
               f"`pip install {' '.join(local.missing_packages())}` on the server, then restart it.")

loaded = current_token.startswith("upload:")
if source == "upload" and loaded and not st.session_state[state.REPLACING]:
    # The uploader's own state is dropped when the page is left: say what is loaded instead of an empty box.
    with st.container(border=True):
        c1, c2 = st.columns([4, 1], vertical_alignment="center")
        c1.caption(_file_line())
        if c2.button("Replace file", help="Choose another CSV or Parquet file; this one stays until it loads."):
            st.session_state[state.REPLACING] = True
            st.rerun()
elif source == "upload":
    uploaded = st.file_uploader(labels.UPLOAD, type=["csv", "tsv", "txt", "parquet", "gz"],
                                help=labels.HELP[labels.UPLOAD])
    failed = st.session_state[state.FAILED_UPLOAD]
    if uploaded is not None and failed is not None and uploaded.file_id == failed[0]:
        st.error(escape.md(failed[2]))  # a file that could not be loaded is not read again on every rerun
        st.stop()
    # A file is read once per upload (its id), not on every rerun of this page.
    if uploaded is not None and uploaded.file_id != st.session_state[state.UPLOAD_ID]:
        with st.status(f"Loading {escape.md(uploaded.name)} ...") as status:
            try:
                loading.load_upload(uploaded, lambda label: status.update(label=escape.md(label)))
                problem = None
            except ValueError as exc:
                problem = str(exc)
                status.update(label=f"Could not load {escape.md(uploaded.name)}", state="error")
        if problem:
            # The previous file's results must not stay on the other pages as if they were this file's.
            loading.forget_dataset(uploaded.file_id, uploaded.name, problem)
            st.error(escape.md(problem))
            st.stop()
        st.session_state[state.UPLOAD_ID] = uploaded.file_id
        st.session_state[state.DATASET_BYTES] = uploaded.size
        st.session_state[state.REPLACING] = False
        st.rerun()  # redraw the sidebar for the new dataset
    elif not loaded:
        if failed is not None:
            st.error(f"The last upload, {escape.md(failed[1])}, could not be loaded: {escape.md(failed[2])}")
        st.info("Choose a CSV or Parquet file to analyse, or pick a sample above.")
        st.stop()
    elif st.button(f"Keep {escape.md(st.session_state[state.DATASET_NAME])}"):
        st.session_state[state.REPLACING] = False
        st.rerun()
elif source == "local":
    chosen_source = _local_source()
    c1, c2 = st.columns(2)
    rows_analysed = controls.kept(c1.radio, "Rows analysed", "local:rows", "counts", options=list(ROWS_ANALYSED),
                                  format_func=ROWS_ANALYSED.get,
                                  help="Every row: DuckDB computes the count tables where the files lie, and every "
                                       "page reads them, intervals (from counts per membership pattern) and the "
                                       "threshold explorer included; slices, the correlation score, consistency and "
                                       "the side-by-side model comparison need the rows. A random sample (seed 0) is "
                                       "read into memory, and every page works on it.")
    st.session_state[state.LOCAL_AUC] = controls.kept(
        c2.radio, "AUC score levels", "local:auc", "bins", options=list(AUC_LEVEL_LABELS),
        format_func=AUC_LEVEL_LABELS.get, disabled=rows_analysed == "sample",
        help="Bins: each AUC is computed from 10,000 equal score bins and lies within its stated max binning error "
             "of the exact value (small and fast at any size). Exact: one level per distinct score, equal to the "
             "in-memory AUCs, but the count table grows with the distinct scores.")
    if (chosen_source != st.session_state[state.LOCAL_SOURCE] or rows_analysed != st.session_state[state.LOCAL_ROWS]
            or not current_token.startswith("local")):
        with st.status(f"Reading {escape.md(chosen_source.label)} ...") as status:
            try:
                loading.load_local(chosen_source, rows_analysed)
                st.session_state[local.FIRST_MAPPING] = True   # its first mapping is counted at once
                problem = None
            except ValueError as exc:
                problem = str(exc)
                status.update(label=f"Could not read {escape.md(chosen_source.label)}", state="error")
        if problem:
            st.error(escape.md(problem))
            st.stop()
        st.rerun()  # redraw the sidebar for the new dataset
elif current_token != "sample:" + source:
    loading.load_sample(source)
    st.rerun()  # redraw the sidebar for the new dataset

frame: pd.DataFrame = st.session_state[state.FRAME]
token = st.session_state[state.DATASET_TOKEN]
if source != "upload" or st.session_state[state.REPLACING]:
    st.caption(_file_line())
if analysis.counted():
    st.caption("Every row counted where it lies: every page reads the count tables (intervals from counts per "
               "membership pattern); slices, the correlation score, consistency and the side-by-side model "
               "comparison need the rows, so for those analyse a random sample.")
for note in frame.attrs.get("notes", []):
    st.info(escape.md(note))
as_text = profiling.numbers_as_text(token, frame)
if as_text:
    st.info(profiling.NOT_SCORES_MESSAGE.format(reasons="; ".join(f"{escape.md(repr(c))} {escape.md(r)}"
                                                              for c, r in as_text.items())))
review_restore.restore_section()

# 2. Column mapping -------------------------------------------------------------------------
st.subheader("Map the columns")
profile = profiling.column_profile(token, frame)
columns = profile["column"].tolist()
numeric = profiling.numeric_columns(token, frame)
indicator_columns = [c for c, bool_or_number in zip(columns, profile["numeric"] | profile["dtype"].isin(BOOLEAN_DTYPES))
                     if bool_or_number]   # identity columns: numbers (0/1, a share) or booleans
seed = st.session_state[state.MAPPING] or profiling.guess_mapping(frame, profile, token)
key = f"map:{token}:"

c1, c2 = st.columns(2)
with c1:
    label = controls.kept(st.selectbox, labels.LABEL_COLUMN, key + "label", seed.label, options=columns,
                          help="The true outcome: two values, or more with Keep all classes.")
    values = profiling.label_values(frame, label)
    positive_default = seed.positive_label if label == seed.label else profiling.guess_positive(values)
    positive = controls.kept(st.selectbox, labels.POSITIVE_LABEL, key + "positive:" + label,
                             positive_default if positive_default in values else profiling.guess_positive(values),
                             options=values, format_func=str,
                             help="The label value the score predicts (the event): a high score means this value.")
    guessed, why = fc.guess_outcome(label, positive)
    seeded = seed.positive_outcome if (label, positive) == (seed.label, seed.positive_label) else guessed
    outcome = controls.kept(st.radio, labels.OUTCOME, key + f"outcome:{label}:{positive}", seeded,
                            options=["favourable", "adverse"], horizontal=True,
                            format_func=lambda o: {"favourable": "Favourable (e.g. approve, hire)",
                                                   "adverse": "Adverse (e.g. deny, flag)"}[o],
                            help=labels.HELP[labels.OUTCOME])
    label_words = _label_words(seed, key, label, positive, values, outcome)
    counted = analysis.counted()   # every row counted where it lies
    all_classes = controls.kept(st.checkbox, labels.KEEP_ALL_CLASSES, key + "all_classes:" + label,
                                seed.all_classes or len(values) > 2, help=labels.HELP[labels.KEEP_ALL_CLASSES])
    scores = controls.kept(st.multiselect, labels.SCORE_COLUMN, key + "scores", list(seed.scores),
                           options=[c for c in numeric if c != label],
                           help="One or more numeric model scores (any scale). Pick the one to analyse "
                                "in the sidebar.")
    max_classes = profiling.MAX_SLICE_VALUES if all_classes else 2
    candidates = profile.loc[(profile["n_unique"] <= max_classes) & (profile["column"] != label), "column"].tolist()
    # None, not a text, means "no predicted label": a column may well be named "(none)".
    predicted = controls.kept(
        st.selectbox, labels.PREDICTED_COLUMN, key + "predicted", seed.predicted_label, options=[None, *candidates],
        format_func=lambda c: labels.NO_PREDICTED if c is None else str(c), placeholder=labels.NO_PREDICTED,
        help="Optional: the model's given decisions, used on the Rate disparities page instead of a threshold and "
             "on the Class-wise bias page.")
with c2:
    others = [c for c in columns if c not in (label, *scores)]
    protected = controls.kept(st.multiselect, labels.PROTECTED, key + "protected", list(seed.protected),
                              options=others,
                              help="Categorical attributes such as race or sex. Numeric ones with many "
                                   "values are cut into quantile bins (see Subgroups in the sidebar).")
    identities = controls.kept(st.multiselect, labels.IDENTITY, key + "identities", list(seed.indicators),
                               options=[c for c in indicator_columns if c in others and c not in protected],
                               help="Indicator columns (true/false, 0/1 or a share): a row belongs to the subgroup "
                                    "when the value is true or at least 0.5. Subgroups may overlap.")
    weight = controls.kept(
        st.selectbox, labels.WEIGHT_COLUMN, key + "weight", seed.weight,
        options=[None, *[c for c in numeric if c not in (label, *scores, *protected, *identities)]],
        format_func=lambda c: labels.NO_WEIGHT if c is None else str(c), help=labels.HELP[labels.WEIGHT_COLUMN],
        placeholder=labels.NO_WEIGHT)   # None shows the placeholder: the "(no weights ...)" choice, shown as chosen
    proposed = profiling.first_guess(token, frame).weight   # proposed from its name and values, never applied unasked
    if weight is None and proposed is not None and proposed not in (label, *scores, *protected, *identities):
        st.caption(f"**{escape.md(proposed)}** looks like a column of sample weights. Weights change every number "
                   "(each row then counts as that many people): use them only if that is what the column means.")
        st.button(f"Weigh the rows by {escape.md(proposed)}", key=key + "use_weight", on_click=_use_weight,
                  args=(key + "weight", proposed))
    # The column that dates each row, read by the Over time page alone (not offered for data counted where it lies:
    # that page needs the rows).
    time = None if counted else controls.kept(
        st.selectbox, "Time column", key + "time", seed.time,
        options=[None, *[c for c in columns if c not in (label, *scores, predicted, *protected, *identities, weight)]],
        format_func=lambda c: "(no time column)" if c is None else str(c), placeholder="(no time column)",
        help="Optional: the column that dates each row (dates, datetimes, ISO 8601 text, or integers such as a week "
             "number). Only the Over time page reads it, to assess every rule per day, week, month or quarter.")
    st.caption("Intersections, bins for numeric attributes and the minimum subgroup size are under **Subgroups** "
               "in the sidebar; they apply to every page." if counted else
               "Intersections, bins for numeric attributes and the minimum subgroup size are under "
               "**Subgroups** in the sidebar; a slice of the rows under **Slice**. Both apply to every page.")

mapping = fc.ColumnMapping(
    label=label, positive_label=positive, scores=tuple(scores), positive_outcome=outcome,
    predicted_label=predicted, label_words=label_words,
    protected=tuple(protected), indicators=tuple(identities), all_classes=bool(all_classes), weight=weight, time=time,
    **st.session_state[state.SUBGROUP_OPTIONS])
if counted:   # every mapping edit is a count of every row: edits wait for one press of the button, together
    mapping = _pending(mapping)
try:
    with progress.stage(local.counting_label(st.session_state[state.LOCAL_SOURCE], analysis.intervals_shown())
                        if counted else "Validating the mapping and building the subgroups ..."):
        mapping_key, scored = analysis.analyse(mapping)
except ValueError as exc:
    empty = analysis.empty_slice()
    if empty:  # the mapping is not at fault: keep it, so the other pages say what is wrong with the slice
        st.session_state[state.MAPPING] = mapping
        st.warning(empty)
        st.stop()
    st.session_state[state.MAPPING] = None
    guess = profiling.first_guess(token, frame)
    options = st.session_state[state.SUBGROUP_OPTIONS]
    untouched = guess.mapping is not None and mapping == replace(guess.mapping, **options)
    if untouched and guess.missing:  # the first screen after an upload: say what to choose, not an error
        st.info(" ".join(guess.missing) + " The mapping above is a first guess from the column names; complete it.")
    else:
        st.error(escape.md(str(exc)))
    st.stop()
previous = st.session_state[state.MAPPING]
st.session_state[state.MAPPING] = mapping
if counted:   # the summary is of the mapping counted (the one applied), whatever the widgets show until applied
    label, positive, outcome = mapping.label, mapping.positive_label, mapping.positive_outcome
    guessed, why = fc.guess_outcome(label, positive)
review_url.sync_url()  # the frame wrote the URL before this page's mapping was known
if (previous is None or sidebar is None or previous.scores != mapping.scores
        or (counted and repr(previous) != repr(mapping))):
    # The sidebar was drawn with the previous mapping (or none): its Model picker (and the context line's model) must
    # offer the mapped score columns, and on counted data the box of edits not applied yet must go, so the run starts
    # again (once: then the mapping is unchanged).
    st.rerun()
if repr(previous) != repr(mapping):   # compared by repr, in which a NaN equals itself
    sidebar.recount()   # the Subgroups box counts this mapping's subgroups, on this run (a rerun cost 0.2 s at 10^6 rows)

# 3. Summary -----------------------------------------------------------------------------
st.subheader("What will be analysed")
current_slice = st.session_state[state.SLICE]
if current_slice.conditions:
    st.info(f"Slice: {escape.md(current_slice.describe())}. {len(frame) - scored.n_input:,} of the file's "
            f"{len(frame):,} rows are outside it and left out of every page (change it under Slice in the sidebar).")
st.markdown(captions.outcome_sentence(label, positive, outcome, why if outcome == guessed == "adverse" else "",
                                     mapping.label_words))
m1, m2, m3, m4 = tiles.row(4)
m1.metric("Rows in slice" if current_slice.conditions else "Rows in file", f"{scored.n_input:,}")
m2.metric("Rows used", f"{scored.n_rows:,}")
if mapping.weight:
    m2.caption(captions.weight_caption(mapping.weight, scored))
m3.metric("Rows excluded", f"{scored.n_input - scored.n_rows:,}")
m4.metric("Base rate (share positive)", formats.tile(scored.base_rate))
m4.caption(captions.base_rate_caption(scored, controls.intervals().ci))
if len(scored.exclusions):
    st.warning("Some rows are left out of every page. Each is counted once, under its first reason:")
    st.dataframe(scored.exclusions, hide_index=True, column_config=formats.column_config(scored.exclusions.columns))

groups = computations.subgroup_table(token, mapping_key, scored)
n_small = int(groups["small"].sum())
if mapping.all_classes:
    classes = analysis.class_sizes(scored)
    st.markdown(f"**{len(classes)} classes** in {escape.md(label)}: " + ", ".join(
        f"{escape.md(c)} ({n:,})" for c, n in classes.items())
        + f". Binary metrics use {escape.md(positive)} against the rest.")
st.markdown(f"**{len(groups)} subgroups**. " + computations.small_rows(token, mapping_key, scored)
            + (" Small subgroups are listed everywhere, flagged *small*." if n_small else ""))
st.dataframe(groups, hide_index=True, column_config=formats.column_config(groups.columns))
# The labels per subgroup at a glance (a property of the data, assessed on Dataset metrics), collapsed: the table
# above has the counts. Drawn when opened, and once collapsed on the session's first view of this page (where the app
# opens), so that the browser loads its chart library (about a second here) while the page is read, not on the first
# metric page; later reruns of this page (a mapping change) do not redraw it unseen.
level = controls.intervals().ci
box = st.expander("Base rate per subgroup (chart)", key=state.BASE_RATES_OPEN, on_change="rerun")
if box.open or not st.session_state[state.CHARTS_LOADED]:
    st.session_state[state.CHARTS_LOADED] = True
    rates = computations.base_rates(token, mapping_key, scored, level)
    box.plotly_chart(computations.chart("data:base_rates", (token, mapping_key, level), lambda: plotting.rate_chart(
        rates, ["base_rate"], labels={"base_rate": "Base rate"}, level=level, title="Base rate per subgroup")),
        width="stretch")
    box.caption(f"The share of rows labelled {escape.md(positive)} in each subgroup"
                + (f", with its {formats.level_text(level)} Wilson interval" if level is not None else "")
                + "; hatched bars are small subgroups. A difference here is a property of the labels, not of the "
                  "model: Dataset metrics assesses it.")

if scored.scores:
    rows = []
    for name in scored.scores:
        low, high, _ = scored.score_ranges[name]
        rows.append({"score column": name, "min": low, "max": high,
                     "in [0, 1] (calibration possible)": bool(low >= 0 and high <= 1)})
    st.dataframe(pd.DataFrame(rows), hide_index=True)
