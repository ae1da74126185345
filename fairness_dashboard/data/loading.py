"""Loading a dataset into the session: the bundled samples, an upload, data on this machine, and the bounds on
what one session may load.

Loading makes the dataset current (``st.session_state``: its rows, name, content token and a first
mapping guess, ``fairness_dashboard.profile``) and analyses the guess once (``fairness_dashboard.rows.analyse``), so the Data page
shows any problem with it. Only the bundled samples (public data, small) are cached across sessions,
with ``st.cache_resource``. Nothing is written to disk.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace

import pandas as pd
import streamlit as st

import fairness_core as fc

from .. import launch
from ..session import state
from . import analysis, local, profiling

SAMPLE_DIR = launch.APP_DIR / "sample_data"   # beside app.py, in a checkout and in an install
SAMPLES = {
    "credit": {
        "title": "Sample: credit decisions",
        "file": "credit_decisions.csv",
        "mapping": fc.ColumnMapping(label="repaid", positive_label=1,
                                    scores=("score_logistic", "score_boosting"), predicted_label="approved",
                                    protected=("ethnicity",), time="decision_date"),
    },
    "moderation": {
        "title": "Sample: text moderation",
        "file": "text_moderation.csv",
        "mapping": fc.ColumnMapping(label="toxicity", positive_label="toxic",
                                    scores=("toxicity_score", "toxicity_score_v2"),
                                    indicators=("female", "male", "christian", "white", "muslim", "black",
                                                "gay", "transgender")),
    },
}
DEFAULT_SAMPLE = "credit"
CONSISTENCY_SAMPLE = 20_000  # rows whose neighbours consistency counts by default (a seeded sample)
# The largest table one session may load, in cells (rows x columns): refused beyond it, before it is read in
# full (fc.read_table's max_cells). Measured with AppTest, a session that uploads a CSV, maps it and visits
# every page grows by 42-57 bytes per cell at its peak (26-29 bytes once settled), plus the file's own bytes
# kept for the session (about 6 per cell): 2*10^7 cells is a peak of 1.0 GB (6 columns, 3.3*10^6 rows) to
# 1.25 GB (3 columns, 6.7*10^6 rows) per session.
MAX_CELLS = 20_000_000
# Memory a file takes while it is read and analysed, in multiples of its size: the bytes, the parsed
# table and the validated columns (measured at 10^6 rows: about 4x for CSV; Parquet is compressed).
MEMORY_FACTOR = {"csv": 5, "parquet": 15}
MEMORY_MESSAGE = (
    "The file {name!r} ({size}) would probably not fit in the memory this server has free (about {free}; reading "
    "and analysing a {kind} file takes about {factor} times its size). Tip: upload it as Parquet, keep only the "
    "columns the analysis needs (label, scores, predicted label, protected attributes), or upload a sample of "
    "the rows."
)
OUT_OF_MEMORY_MESSAGE = (
    "The server ran out of memory while {step} {name!r} ({size}). Tip: upload it as Parquet, keep only the columns "
    "the analysis needs, or upload a sample of the rows."
)


@st.cache_resource(max_entries=len(SAMPLES), ttl=3600, show_spinner=False)
def read_sample(key: str) -> pd.DataFrame:
    """The bundled sample `key` as a DataFrame (shared by every session: never modify it)."""
    return fc.read_table(SAMPLE_DIR / SAMPLES[key]["file"])


def token_of(data: bytes) -> str:
    """Content token of uploaded bytes."""
    return "upload:" + hashlib.sha256(data).hexdigest()


def size_text(n_bytes: float) -> str:
    """A file size in words: 512 bytes, 3.2 MB, 1.1 GB."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:.1f} {unit}"
    return f"{int(n_bytes)} bytes"


def available_memory() -> int | None:
    """Bytes of memory this process can still use: the system's available memory (/proc/meminfo), or the
    container's limit minus its use when that is smaller (cgroup v2); None where neither can be read."""
    free = []
    try:
        with open("/proc/meminfo") as fh:
            free += [int(line.split()[1]) * 1024 for line in fh if line.startswith("MemAvailable:")]
    except (OSError, ValueError, IndexError):
        pass
    try:
        with open("/sys/fs/cgroup/memory.max") as fh, open("/sys/fs/cgroup/memory.current") as used:
            limit = fh.read().strip()
            if limit != "max":
                free.append(int(limit) - int(used.read().strip()))
    except (OSError, ValueError):
        pass
    return min(free) if free else None


def memory_problem(name: str, size: int, content=None) -> str | None:
    """Why a file of `size` bytes would not fit in the memory available (the message), or None if it would.

    `content` (bytes or a buffer, optional): the file itself; a gzip file counts its decompressed size as its gzip
    trailer states it (the last member's size modulo 2**32, at most ``fc.read_table``'s 1 GiB when it is read), so
    that a small gzip of a large CSV is refused up front as the CSV would be.
    """
    kind = "parquet" if name.lower().endswith(".parquet") else "csv"
    shown = size_text(size)
    if content is not None and len(content) >= 18 and bytes(content[:2]) == b"\x1f\x8b":
        stated = int.from_bytes(bytes(content[-4:]), "little")
        if stated > size:
            size, shown = stated, f"{shown}, {size_text(stated)} decompressed"
    free = available_memory()
    if free is None or size * MEMORY_FACTOR[kind] <= free:
        return None
    return MEMORY_MESSAGE.format(name=name, size=shown, free=size_text(max(free, 0)),
                                 kind="Parquet" if kind == "parquet" else "CSV", factor=MEMORY_FACTOR[kind])


def load_upload(uploaded, stage) -> None:
    """Parse an uploaded file and make it the current dataset, with a first guess of its mapping.

    `stage(label)` is called with the name of each step (parsing, checking the columns, analysing
    the mapping) for the progress indicator. Raises ValueError with the message to show for a file
    that cannot be read, does not fit in memory, or runs out of memory.
    """
    name, size = uploaded.name, uploaded.size
    problem = memory_problem(name, size, uploaded.getbuffer())
    if problem:
        raise ValueError(problem)
    step = "reading"
    try:
        stage(f"Parsing {name} ({size_text(size)}) ...")
        raw = uploaded.getvalue()
        token = token_of(raw)
        if token == st.session_state[state.DATASET_TOKEN]:
            return  # the same content again: keep its mapping
        frame = fc.read_table(raw, name=name, max_cells=MAX_CELLS)
        del raw
        step = "checking the columns of"
        stage("Checking the columns ...")
        profile = profiling.column_profile(token, frame)
        mapping = replace(profiling.guess_mapping(frame, profile, token),
                          **(st.session_state[state.SUBGROUP_OPTIONS] or {}))
        keys = (state.FRAME, state.DATASET_NAME, state.DATASET_TOKEN, state.MAPPING, state.LOCAL_SOURCE)
        previous = {key: st.session_state[key] for key in keys}
        st.session_state.update(dict(zip(keys, (frame, name, token, mapping, None))))
        st.session_state[state.FAILED_UPLOAD] = None
        step = "analysing"
        stage("Validating the mapping and building the subgroups ...")
        try:
            analysis.analyse(mapping)  # memoized for the Data page, which shows any problem with the guess
        except ValueError:
            pass
        except MemoryError:
            st.session_state.update(previous)  # back to the dataset that fitted
            raise
    except MemoryError as exc:
        raise ValueError(OUT_OF_MEMORY_MESSAGE.format(step=step, name=name, size=size_text(size))) from exc


def forget_dataset(file_id: str, name: str, message: str) -> None:
    """After a failed upload: drop the previous dataset and its mapping (no page shows its results any more)
    and remember the failure (the upload `file_id` is not read again; every page says what happened)."""
    for key in (state.FRAME, state.DATASET_NAME, state.DATASET_TOKEN, state.MAPPING, state.MODEL, state.UPLOAD_ID,
                state.DATASET_BYTES, state.SLICE, state.LOCAL_SOURCE):
        st.session_state[key] = state.DEFAULTS[key]
    st.session_state[state.REPLACING] = False
    st.session_state[state.FAILED_UPLOAD] = (file_id, name, message)


def load_local(source: local.LocalSource, rows: str) -> None:
    """Make data on this machine the current dataset: every row counted where it lies (``rows="counts"``; its first
    ``local.PREVIEW_ROWS`` rows fill the mapping widgets) or a random sample of ``local.SAMPLE_ROWS`` rows in memory
    (``"sample"``). The mapping is kept when only `rows` changes, else guessed from the rows read.

    Raises ValueError when the rows cannot be read or there are none.
    """
    sample = rows == "sample"
    frame = local.rows_of(source, local.SAMPLE_ROWS if sample else local.PREVIEW_ROWS, sample=sample)
    if frame.empty or not frame.shape[1]:
        raise ValueError(f"{source.label!r} has no rows. Tip: choose other files or another table.")
    same = st.session_state[state.LOCAL_SOURCE] == source and st.session_state[state.MAPPING] is not None
    mapping = st.session_state[state.MAPPING] if same else replace(
        profiling.guess_mapping(frame), **(st.session_state[state.SUBGROUP_OPTIONS] or {}))
    st.session_state.update({
        state.FRAME: frame, state.DATASET_TOKEN: ("local-sample:" if sample else "local:") + source.fingerprint,
        state.DATASET_NAME: source.label + (f" (random sample of {len(frame):,} rows)" if sample else ""),
        state.DATASET_BYTES: source.n_bytes, state.MAPPING: mapping, state.LOCAL_SOURCE: source,
        state.LOCAL_ROWS: rows, state.FAILED_UPLOAD: None, state.UPLOAD_ID: None, state.SLICE: None})


def load_sample(key: str) -> None:
    """Make sample `key` the current dataset, with its documented mapping."""
    st.session_state[state.LOCAL_SOURCE] = None
    st.session_state[state.FAILED_UPLOAD] = None
    st.session_state[state.FRAME] = read_sample(key)
    st.session_state[state.DATASET_NAME] = SAMPLES[key]["title"]
    st.session_state[state.DATASET_TOKEN] = "sample:" + key
    st.session_state[state.MAPPING] = SAMPLES[key]["mapping"]
