"""Loading and memoized computation: the fairness_core calls of every page, each keyed by what it depends on.

Results are memoized per session (:func:`ui.memo.memo`: the objects themselves, in
``st.session_state``, never pickled, bounded, released when the session ends), keyed by small
values: the dataset token (a sample id, or the SHA-256 of the uploaded bytes), the mapping and
slice (``mapping_key``), and the options the result depends on. Large objects are passed with a
leading underscore and are not part of the key. Each statistic is keyed only by its own inputs:

- rows and subgroups (``ScoredData``): token, mapping and slice; a new minimum subgroup size
  reuses them (only the small flags change);
- count tables (AUC table, threshold, calibration, class and label counts): the above plus the
  score column (and the bins), whatever the minimum size (:func:`per_rows`); the confusion counts
  at a threshold are lookups in the score's threshold counts, sorted once;
- post-aggregation results (disparities, reductions, findings): the counts' key plus their own
  options, computed from the memoized counts in milliseconds.

Only the bundled samples (public data, small) are cached across sessions, with
``st.cache_resource``. Nothing is written to disk.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import os
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st

import fairness_core as fc

from . import local, state, text
from .memo import memo

SAMPLE_DIR = Path(__file__).resolve().parent.parent / "sample_data"
SAMPLES = {
    "credit": {
        "title": "Sample: credit decisions",
        "file": "credit_decisions.csv",
        "mapping": fc.ColumnMapping(label="repaid", positive_label=1,
                                    scores=("score_logistic", "score_boosting"), predicted_label="approved",
                                    protected=("ethnicity",)),
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
MAX_SLICE_VALUES = 50  # a non-numeric column with more distinct values is not offered for slicing
# Entries per memoized function and session: the large ones (rows of a mapping) few, small results many.
LARGE, COUNTS, SMALL = 2, 8, 64
CONSISTENCY_SAMPLE = 20_000  # rows whose neighbours consistency counts by default (a seeded sample)
CONSISTENCY_JOBS = 2  # threads of its neighbour search
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
EMPTY_SLICE_MESSAGE = (
    "The slice ({slice}) keeps none of the {n:,} rows of the file, so there is nothing to analyse. Widen it in the "
    "sidebar under Slice: remove a condition, keep more values, or move the ends of a range."
)
FAILED_UPLOAD_MESSAGE = (
    "No data is loaded: the last upload, {name}, could not be loaded, so the previous file and its results were "
    "cleared. The **Data** page says why; load another file or a sample there."
)
NOT_SCORES_MESSAGE = (
    "Not offered as score columns, because their numbers are written as text: {reasons}. Tip: write the numbers "
    "with a decimal point and without % signs or thousands separators (a semicolon-separated file may use decimal "
    "commas: they are read as numbers), then upload the file again."
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
        profile = column_profile(token, frame)
        mapping = replace(guess_mapping(frame, profile), **(st.session_state[state.SUBGROUP_OPTIONS] or {}))
        keys = (state.FRAME, state.DATASET_NAME, state.DATASET_TOKEN, state.MAPPING, state.LOCAL_SOURCE)
        previous = {key: st.session_state[key] for key in keys}
        st.session_state.update(dict(zip(keys, (frame, name, token, mapping, None))))
        st.session_state[state.FAILED_UPLOAD] = None
        step = "analysing"
        stage("Validating the mapping and building the subgroups ...")
        try:
            analyse(mapping)  # memoized for the Data page, which shows any problem with the guess
        except ValueError:
            pass
        except MemoryError:
            st.session_state.update(previous)  # back to the dataset that fitted
            raise
    except MemoryError as exc:
        raise ValueError(OUT_OF_MEMORY_MESSAGE.format(step=step, name=name, size=size_text(size))) from exc


@memo(LARGE)
def slice_mask(token: str, slice_key: str, _frame: pd.DataFrame, _slice: fc.Slice):
    """Boolean mask of the rows of the dataset in the slice (slice_key = repr of the slice)."""
    return _slice.mask(_frame)


@memo(SMALL)
def slice_values(token: str, column: str, _frame: pd.DataFrame):
    """What a slice condition on `column` can keep: a (min, max) range for a numeric column with
    many values, else the list of its values as display text (missing last)."""
    values = _frame[column]
    numeric = pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)
    if numeric and values.nunique() > 10:
        return float(values.min()), float(values.max())
    return fc.Condition.value_labels(values)


@memo(LARGE)
def scored_rows(token: str, rows_key: str, _frame: pd.DataFrame, _mapping: fc.ColumnMapping,
                _slice: fc.Slice | None = None) -> fc.ScoredData:
    """Validated ScoredData of the rows in the slice (raises ValueError for a bad mapping or an empty slice).

    `rows_key` must identify the mapping (but for its minimum subgroup size, which only flags
    subgroups: see :func:`scored`) and the slice.
    """
    if _slice is not None and _slice.conditions:
        mask = slice_mask(token, repr(_slice), _frame, _slice)
        if not mask.any():
            raise ValueError(EMPTY_SLICE_MESSAGE.format(slice=_slice.describe(), n=len(_frame)))
        _frame = _frame.loc[mask].reset_index(drop=True)
    return fc.ScoredData.from_frame(_frame, _mapping)


@memo(LARGE)
def scored(token: str, mapping_key: str, _frame: pd.DataFrame, _mapping: fc.ColumnMapping,
           _slice: fc.Slice | None = None) -> fc.ScoredData:
    """Validated ScoredData of the rows in the slice (raises ValueError for a bad mapping or an empty slice).

    `mapping_key` must identify both the mapping and the slice (see :func:`analyse`). The rows are
    validated once per mapping and slice whatever the minimum subgroup size: a new size shares
    their arrays and only re-flags the subgroups.
    """
    base_mapping = replace(_mapping, min_size=fc.ColumnMapping.min_size)
    base = scored_rows(token, rows_key(mapping_key), _frame, base_mapping, _slice)
    if _mapping.min_size == base_mapping.min_size:
        return base
    return replace(base, mapping=_mapping, subgroups=base.subgroups.with_min_size(_mapping.min_size))


def rows_key(mapping_key: str) -> str:
    """The part of a key from :func:`analyse` that identifies the rows and subgroups: all but the minimum size."""
    return mapping_key.rsplit("|min_size=", 1)[0]


def with_min_size(counts, min_size: int):
    """A count table with its subgroups flagged small below `min_size`, nothing counted again.

    Every count table of fairness_core (confusion, threshold, calibration and class counts) keeps
    ``min_size`` as a field and flags small subgroups from it when asked; the AUC table flags them
    in its ``small`` column (``size < min_size``).
    """
    if isinstance(counts, pd.DataFrame):
        small = counts["size"] < min_size
        return counts if small.equals(counts["small"]) else counts.assign(small=small)
    return counts if counts.min_size == min_size else replace(counts, min_size=min_size)


def per_rows(func):
    """Memoize count table `func(token, mapping_key, ..., _data)` once per rows: on the token and
    :func:`rows_key` of `mapping_key`, whatever the minimum subgroup size, which
    :func:`with_min_size` applies to the result (a new size re-flags subgroups in milliseconds)."""
    counted = memo(COUNTS)(func)
    signature = inspect.signature(func)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        min_size = bound.arguments["_data"].subgroups.min_size
        bound.arguments["mapping_key"] = rows_key(bound.arguments["mapping_key"])
        return with_min_size(counted(*bound.args, **bound.kwargs), min_size)

    return wrapper


@memo(SMALL)
def chart(name: str, key: tuple, _build):
    """The Plotly figure `_build()` returns, built once per (`name`, `key`).

    `key` must hold everything the figure shows (token, mapping key, the options of its numbers),
    so that a figure survives a change of an option it does not show: the AUC chart a new p, the
    ratio-score chart a new reference. Never modify the figure returned.
    """
    return _build()


@memo(COUNTS)
def subgroup_table(token: str, mapping_key: str, _data: fc.ScoredData) -> pd.DataFrame:
    """The subgroups with their sizes and label counts (``ScoredData.subgroup_table``)."""
    return _data.subgroup_table()


@memo(COUNTS)
def small_rows(token: str, mapping_key: str, _data: fc.ScoredData) -> str:
    """How many subgroups are small and how many rows they hold, in words (``text.small_rows_text``)."""
    return text.small_rows_text(_data.subgroups)


def analyse(mapping: fc.ColumnMapping) -> tuple[str, fc.ScoredData]:
    """(cache key, ScoredData) of the current dataset under `mapping` and the sidebar's slice.

    Raises ValueError for a bad mapping or an empty slice.
    """
    rows = replace(mapping, min_size=fc.ColumnMapping.min_size)
    token = st.session_state[state.DATASET_TOKEN]
    st.session_state[state.NO_INTERVALS] = None
    if counted():
        base = f"{rows!r}|auc={st.session_state[state.LOCAL_AUC]}"
        counts = local_counts(token, base, st.session_state[state.LOCAL_SOURCE], rows,
                              local.AUC_LEVELS[st.session_state[state.LOCAL_AUC]])
        atoms = intervals_shown()
        if atoms:   # the bootstrap's atoms: one more GROUP BY per table, and per threshold
            with_atoms, why = atom_counts(token, base, st.session_state[state.LOCAL_SOURCE], counts)
            if with_atoms is None:   # too many membership patterns: the pages draw point estimates and say why
                st.session_state[state.INTERVALS] = replace(st.session_state[state.INTERVALS], show=False)
                st.session_state[state.NO_INTERVALS] = why
                atoms = False
            else:
                counts = with_atoms
        key = f"{base}|atoms={atoms}|min_size={mapping.min_size}"  # see rows_key
        return key, counts_data(token, key, mapping.min_size, counts)
    current_slice = rows_slice()
    key = f"{rows!r}|{current_slice!r}|min_size={mapping.min_size}"  # see rows_key
    frame = st.session_state[state.FRAME]
    result = scored(token, key, frame, mapping, current_slice)
    if intervals_shown():   # the bootstrap resamples per membership pattern: bounded before any page computes
        n_patterns = len(result.subgroups.patterns[1])
        if n_patterns > local.MAX_PATTERNS:
            st.session_state[state.INTERVALS] = replace(st.session_state[state.INTERVALS], show=False)
            st.session_state[state.NO_INTERVALS] = TOO_MANY_PATTERNS.format(n=n_patterns, max=local.MAX_PATTERNS)
    return key, result


TOO_MANY_PATTERNS = (
    "Intervals are off for this mapping: its rows fall into {n:,} membership patterns (combinations of the "
    "subgroups and backgrounds each row belongs to), more than the {max:,} the bootstrap resamples within a few "
    "seconds, so every page shows point estimates. Tip: map fewer overlapping identity columns (or fewer "
    "protected attributes), or turn Show intervals off in the sidebar to hide this note."
)


def counted() -> bool:
    """True when the current dataset is data on this machine analysed from its count tables (no rows in memory)."""
    return st.session_state.get(state.LOCAL_SOURCE) is not None and st.session_state.get(state.LOCAL_ROWS) == "counts"


@memo(LARGE)
def local_counts(token: str, rows_key: str, _source: local.LocalSource, _mapping: fc.ColumnMapping, _auc_bins):
    """Every count table of the local source under the mapping (``fc.engines.scored_counts`` by DuckDB), once per
    rows key (the mapping but its minimum size, and the AUC levels); raises ValueError as it does."""
    return local.counts(_source, _mapping, _auc_bins)


@memo(LARGE)
def atom_counts(token: str, rows_key: str, _source: local.LocalSource, _counts) -> tuple:
    """(`_counts` with the atoms the bootstrap resamples, None), or (None, why not) for too many membership patterns
    (``local.with_atoms``), once per rows key; raises ValueError as the engine does."""
    return local.with_atoms(_source, _counts)


def intervals_shown() -> bool:
    """Whether the sidebar's "Show intervals" is on (its kept value: ``controls.kept``), whatever a run made of it."""
    return bool(st.session_state.get(state.KEEP_PREFIX + "intervals:show", True))


@memo(COUNTS)
def counts_data(token: str, mapping_key: str, min_size: int, _counts) -> local.CountsData:
    """The pages' view of the count tables `_counts`, subgroups flagged small below `min_size`."""
    return local.CountsData.of(_counts, min_size)


def needs_rows(what: str) -> bool:
    """Say that `what` needs the rows (data counted where it lies) and how to get a sample; True if so."""
    if not counted():
        return False
    st.info(local.NEEDS_ROWS.format(what=what, n=local.SAMPLE_ROWS))
    return True


def class_sizes(scored) -> pd.Series:
    """Kept rows per class of the label (its values as text), sorted by class."""
    if isinstance(scored, local.CountsData):
        return pd.Series(scored.counts.class_sizes, dtype=np.int64).sort_index()
    return pd.Series(scored.classes).value_counts().sort_index()


def default_threshold(scored, score: str) -> float:
    """``fc.default_threshold`` of a score column, from its range (``fc.threshold_for_range``)."""
    return fc.threshold_for_range(*scored.score_ranges[score])


def rows_slice() -> fc.Slice:
    """The sidebar's slice, or no slice when it keeps every row (the same rows, validated and counted once:
    choosing a column to slice by first keeps all its values)."""
    current = st.session_state.get(state.SLICE) or fc.Slice()
    if current.conditions and counted():
        return fc.Slice()
    if current.conditions:
        frame = st.session_state[state.FRAME]
        if slice_mask(st.session_state[state.DATASET_TOKEN], repr(current), frame, current).all():
            return fc.Slice()
    return current


def sliced_frame() -> pd.DataFrame:
    """The rows of the current dataset in the sidebar's slice (positions match ScoredData.rows' input)."""
    frame = st.session_state[state.FRAME]
    current_slice = rows_slice()
    if not current_slice.conditions:
        return frame
    mask = slice_mask(st.session_state[state.DATASET_TOKEN], repr(current_slice), frame, current_slice)
    return frame.loc[mask].reset_index(drop=True)


@per_rows
def auc_table(token: str, mapping_key: str, score: str, _data: fc.ScoredData) -> pd.DataFrame:
    """Per-subgroup AUC table of one score column (one sort of that column; or the engine's AUC counts', with
    ``max_binning_error``)."""
    if isinstance(_data, local.CountsData):
        return _data.counts.auc[score].table()
    return fc.bias_auc_table(_data.y_true, _data.scores[score], _data.subgroups)


@per_rows
def threshold_counts(token: str, mapping_key: str, score: str, _data: fc.ScoredData) -> fc.ThresholdCounts | fc.AucCounts:
    """Score column `score` sorted once, with cumulative counts: the confusion counts at any threshold (data counted
    where it lies: its AUC counts, which answer the same questions at their levels)."""
    if isinstance(_data, local.CountsData):
        return _data.counts.auc[score]
    return fc.threshold_counts(_data.y_true, _data.scores[score], _data.subgroups)


@memo(COUNTS)
def confusion(token: str, mapping_key: str, source: str, threshold: float | None,
              _data: fc.ScoredData) -> fc.ConfusionCounts:
    """Confusion counts at a threshold on `source` (a score column: array lookups in its memoized
    :func:`threshold_counts`, no pass over the rows), or of the given predictions."""
    if isinstance(_data, local.CountsData):   # read off the AUC counts, counted again by the engine, or given
        counts = _data.counts.given if threshold is None else _data.counts.confusion_at(source, threshold)
        return with_min_size(counts, _data.subgroups.min_size)
    if threshold is None:
        return fc.confusion_counts(_data.y_true, _data.y_pred(), _data.subgroups)
    return threshold_counts(token, mapping_key, source, _data).at(threshold)


@memo(SMALL)
def disparity(token: str, mapping_key: str, source: str, threshold: float | None, metric: str, distance: str,
              reduction: str, reference: str, include_small: bool, level: float | None, n_boot: int,
              adjust: str | None, _counts: fc.ConfusionCounts) -> fc.DisparityResult:
    """A reduced rate disparity (`metric` as named by rate_disparity) or, for ``metric="equalized_odds"``,
    equalized odds, of the cached confusion counts `_counts` (keyed by token, mapping_key, source and
    threshold, as :func:`confusion`). With `level`, bootstrap intervals with `n_boot` replicates and
    the fixed seed 0 (the same inputs always give the same intervals)."""
    kw = dict(distance_measure=distance, reduction=reduction, reference=reference, include_small=include_small,
              ci=level, n_boot=n_boot, random_state=0, adjust=adjust)
    if metric == "equalized_odds":
        return _counts.equalized_odds(**kw)
    return _counts.disparity(metric, **kw)


@memo(SMALL)
def theil(token: str, mapping_key: str, source: str, threshold: float | None, reference: str, reduction: str,
          include_small: bool, level: float | None, n_boot: int, adjust: str | None, outcome: str,
          _counts: fc.ConfusionCounts) -> fc.DisparityResult:
    """The reduced two-group Theil index of the cached confusion counts (keyed as :func:`disparity`), with
    bootstrap intervals (`n_boot` replicates, seed 0) when `level` is set."""
    return _counts.favourable(outcome).theil_index(
        reduction=reduction, reference=reference, include_small=include_small, ci=level, n_boot=n_boot,
        random_state=0, adjust=adjust)


@memo(SMALL)
def theil_indices(token: str, mapping_key: str, source: str, threshold: float | None, level: float | None,
                  n_boot: int, outcome: str, _counts: fc.ConfusionCounts) -> tuple:
    """(individual, between-group) Theil indices of the cached confusion counts: floats, or with `level`
    ``fc.TheilResult`` objects (bootstrap, seed 0); the between-group one is None when the subgroups
    overlap or leave rows out (it needs disjoint subgroups)."""
    kw = dict(ci=level, n_boot=n_boot, random_state=0)
    _counts = _counts.favourable(outcome)   # the benefit is the favourable prediction
    individual = _counts.individual_theil_index(**kw)
    try:
        between = _counts.between_group_theil_index(**kw)
    except ValueError:
        between = None
    return individual, between


@per_rows
def auc_intervals(token: str, mapping_key: str, score: str, level: float, n_boot: int,
                  _data: fc.ScoredData) -> pd.DataFrame:
    """Per-subgroup AUC table of one score column with DeLong intervals at `level`, and in its attrs the
    bootstrap replicates (`n_boot`, seed 0) behind the intervals of the power means and the bias AUC score (data
    counted where it lies: from its AUC counts, with ``max_binning_error``)."""
    if isinstance(_data, local.CountsData):   # from the AUC counts' atoms (the counts with_atoms: see analyse)
        return _data.counts.auc[score].table(level, n_boot=n_boot, random_state=0)
    return fc.bias_auc_table(_data.y_true, _data.scores[score], _data.subgroups, ci=level, n_boot=n_boot,
                             random_state=0)


@per_rows
def calibration(token: str, mapping_key: str, score: str, n_bins: int, strategy: str,
                _data: fc.ScoredData) -> fc.CalibrationCounts:
    """Per-(subgroup, bin) calibration sums of one probability column (and the atoms its bootstrap resamples;
    from the engine: no atoms)."""
    if isinstance(_data, local.CountsData):
        return _data.counts.calibration_at(score, n_bins, strategy)
    return fc.calibration_counts(_data.y_true, _data.scores[score], _data.subgroups, n_bins=n_bins,
                                 strategy=strategy)


def empty_slice() -> str | None:
    """The message for a sidebar slice that keeps no row of the current dataset (Markdown-safe), else None."""
    frame, current_slice = st.session_state.get(state.FRAME), st.session_state.get(state.SLICE)
    if frame is None or current_slice is None or not current_slice.conditions:
        return None
    if slice_mask(st.session_state[state.DATASET_TOKEN], repr(current_slice), frame, current_slice).any():
        return None
    return EMPTY_SLICE_MESSAGE.format(slice=text.md(current_slice.describe()), n=len(frame))


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
        guess_mapping(frame), **(st.session_state[state.SUBGROUP_OPTIONS] or {}))
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


def current():
    """The current (token, cache key, ScoredData), or stop the page with a pointer to the Data page.

    The cache key identifies the mapping and the slice; every cached computation is keyed by it.
    """
    mapping = st.session_state.get(state.MAPPING)
    frame = st.session_state.get(state.FRAME)
    failed = st.session_state.get(state.FAILED_UPLOAD)
    if frame is None and failed is not None:
        st.warning(FAILED_UPLOAD_MESSAGE.format(name=text.md(failed[1])))
        st.stop()
    empty = empty_slice()
    if empty:
        st.warning(empty)
        st.stop()
    if frame is None or mapping is None:
        st.info("No data is mapped yet. Open the **Data** page to load a file and map its columns.")
        st.stop()
    source = st.session_state.get(state.LOCAL_SOURCE)
    if local.changed(source):   # files counted where they lie were rewritten, added or removed since
        st.warning(local.CHANGED.format(label=text.md(repr(source.label))))
        st.stop()
    try:
        key, data = analyse(mapping)
    except ValueError as exc:
        st.error(text.md(str(exc)))
        st.stop()
    if st.session_state[state.NO_INTERVALS]:   # intervals asked for, refused for these counts (analyse says why)
        st.info(text.md(st.session_state[state.NO_INTERVALS]))
    if len(data.subgroups.names) < 2:
        st.warning(f"Only one subgroup ({text.md(', '.join(data.subgroups.names))}) is in the analysed rows, so "
                   "there is nothing to compare it with. Choose other protected attributes on the Data page or "
                   "widen the slice in the sidebar.")
    return st.session_state[state.DATASET_TOKEN], key, data


@memo(SMALL)
def column_profile(token: str, _frame: pd.DataFrame) -> pd.DataFrame:
    """Per column: dtype, whether numeric, and the number of distinct non-missing values (of their text
    when some are unhashable, such as lists or dicts)."""

    def n_unique(values: pd.Series) -> int:
        try:
            return int(values.nunique(dropna=True))
        except TypeError:
            return int(values.dropna().map(str).nunique())

    numeric = [pd.api.types.is_numeric_dtype(_frame[c]) and not pd.api.types.is_bool_dtype(_frame[c])
               for c in _frame.columns]
    return pd.DataFrame({
        "column": [str(c) for c in _frame.columns],
        "dtype": [str(t) for t in _frame.dtypes],
        "numeric": numeric,
        "n_unique": [n_unique(_frame[c]) for c in _frame.columns],
        "n_missing": [int(v) for v in _frame.isna().sum()],
    })


@memo(SMALL)
def numbers_as_text(token: str, _frame: pd.DataFrame) -> dict:
    """Text columns holding numbers in a form read as text (decimal comma, %, thousands separators), with
    the reason (``fc.numbers_as_text``)."""
    return fc.numbers_as_text(_frame)


def numeric_columns(token: str, frame: pd.DataFrame) -> list:
    """Names of the numeric (non-boolean) columns of the dataset."""
    profile = column_profile(token, frame)
    return profile.loc[profile["numeric"], "column"].tolist()


def feature_columns(token: str, frame: pd.DataFrame, mapping: fc.ColumnMapping) -> list:
    """Numeric columns in no role of `mapping` that are neither binary nor row identifiers.

    A row identifier is an integer column whose values are all distinct; these make poor default
    features for consistency or the correlation score.
    """
    info = column_profile(token, frame).set_index("column")
    roles = {mapping.label, *mapping.scores, mapping.predicted_label, *mapping.protected, *mapping.indicators}
    identifier = info["dtype"].str.startswith("int") & (info["n_unique"] == len(frame))
    return [c for c in info.index[info["numeric"]] if c not in roles and info.loc[c, "n_unique"] > 2
            and not identifier[c]]


def label_values(frame: pd.DataFrame, column: str, limit: int = 50) -> list:
    """Distinct non-missing values of a label column, sorted, at most `limit`."""
    values = pd.unique(frame[column].dropna())[: limit]
    try:
        return sorted(values.tolist())
    except TypeError:
        return sorted(values.tolist(), key=str)


def guess_positive(values: list):
    """The value most likely meaning 'positive' among a label's values (fairness_core's guess)."""
    return fc.guess_positive(values)


@memo(SMALL)
def first_guess(token: str, _frame: pd.DataFrame) -> fc.MappingGuess:
    """fairness_core's first mapping guess for the dataset `token`, with the roles it could not fill."""
    return fc.guess_mapping(_frame)


def guess_mapping(frame: pd.DataFrame, profile: pd.DataFrame | None = None) -> fc.ColumnMapping:
    """A first column mapping for an uploaded file, for the user to check and adjust
    (``fairness_core.guess_mapping``: every score column, predicted label and protected attribute)."""
    guess = fc.guess_mapping(frame)
    if guess.mapping is None:
        return fc.ColumnMapping(label=str(frame.columns[0]) if frame.shape[1] else "", positive_label=None)
    return guess.mapping


def current_score(purpose: str) -> str:
    """The score column chosen under Model, or stop the page saying it needs one for `purpose`."""
    score = st.session_state.get(state.MODEL)
    if score is None:
        st.info(f"This page needs a score column ({purpose}). Choose one under Score column on the Data page.")
        st.stop()
    return score


@per_rows
def class_counts(token: str, mapping_key: str, source: str, threshold: float | None, _data: fc.ScoredData):
    """Per-subgroup confusion matrices of true against predicted classes (the Class-wise bias page).

    Predictions come from the given predicted label column (``source="given"``) or from score
    column `source` at `threshold`.
    """
    if isinstance(_data, local.CountsData):
        return _data.counts.class_counts_at(None if source == "given" else source, threshold)
    predicted = _data.class_predictions(None if source == "given" else source, threshold)
    return fc.class_counts(_data.classes, predicted, _data.subgroups)


@memo(SMALL)
def smoothed_edf(token: str, mapping_key: str, concentration: float, include_small: bool, _data: fc.ScoredData,
                 level: float | None = None, n_boot: int = 1000):
    """Smoothed empirical differential fairness of the labels, with bootstrap intervals (seed 0) when `level`
    is set."""
    if isinstance(_data, local.CountsData):
        return fc.smoothed_edf_from_counts(label_counts(token, mapping_key, _data), concentration=concentration,
                                           include_small=include_small, ci=level, n_boot=n_boot, random_state=0)
    return fc.smoothed_edf(_data.y_true, _data.subgroups, concentration=concentration, include_small=include_small,
                           ci=level, n_boot=n_boot, random_state=0)


@memo(SMALL)
def base_rates(token: str, mapping_key: str, _data: fc.ScoredData, level: float | None = None) -> pd.DataFrame:
    """Per-subgroup base rates (share of positive labels) with their counts, and Wilson intervals at `level`
    (from the memoized label counts)."""
    return fc.base_rates_from_counts(label_counts(token, mapping_key, _data), ci=level)


@memo(SMALL)
def correlation(token: str, mapping_key: str, source: str, threshold: float | None, column: str,
                _data: fc.ScoredData, level: float | None = None) -> tuple:
    """(correlation score of the predictions with numeric `column`, rows left out for a missing or
    infinite value: no correlation is defined with them).

    With `level`, the score is a ``fc.CorrelationScoreResult`` carrying Fisher's z interval.
    """
    values = sliced_frame()[column].to_numpy(dtype=float, na_value=float("nan"))[_data.rows]
    present = np.isfinite(values)
    y_pred = _data.y_pred(None if source == "given" else source, threshold)
    return fc.correlation_score(y_pred[present], values[present], ci=level), int((~present).sum())


@per_rows
def label_counts(token: str, mapping_key: str, _data: fc.ScoredData) -> fc.ConfusionCounts:
    """Label counts per subgroup, as the confusion counts of the labels against themselves.

    Their selection rate is the base rate (share of positive labels), so base-rate disparities
    (dataset statistical parity) for any distance, reference and reduction come from these cached
    counts without recomputation; the tests check them against ``fc.dataset_statistical_parity``.
    """
    if isinstance(_data, local.CountsData):
        return _data.labels
    return fc.confusion_counts(_data.y_true, _data.y_true, _data.subgroups)


@memo(SMALL)
def consistency(token: str, mapping_key: str, features: tuple, n_neighbors: int, sample_size: int | None,
                _data: fc.ScoredData):
    """kNN consistency of the labels on the chosen feature columns (rows of the analysis only), counted on a
    seeded sample of `sample_size` rows (None: every row), the neighbour search on ``CONSISTENCY_JOBS`` threads."""
    rows = sliced_frame()[list(features)].iloc[_data.rows]
    return fc.consistency(rows, _data.y_true, n_neighbors=n_neighbors, sample_size=sample_size, random_state=0,
                          n_jobs=min(CONSISTENCY_JOBS, os.cpu_count() or 1))


# Model comparison (ui/compare.py): every mapped score column, each at its own threshold --------------------------

@memo(SMALL)
def model_comparison(token: str, mapping_key: str, thresholds: tuple, baseline: str, quantities: tuple,
                     distance: str, reduction: str, reference: str, include_small: bool, level: float | None,
                     n_boot: int, _data: fc.ScoredData) -> pd.DataFrame:
    """``fc.compare_models`` of the score columns in `thresholds` (``((score, threshold), ...)``: predicted
    positive = score >= its threshold) against `baseline`, with paired bootstrap intervals (seed 0) at `level`."""
    predictions = {score: _data.scores[score] >= threshold for score, threshold in thresholds}
    return fc.compare_models(_data.y_true, predictions, _data.subgroups, baseline=baseline, quantities=quantities,
                             distance_measure=distance, reduction=reduction, reference=reference,
                             include_small=include_small, ci=level, n_boot=n_boot, random_state=0,
                             positive_outcome=_data.mapping.positive_outcome)


@memo(SMALL)
def model_auc_differences(token: str, mapping_key: str, baseline: str, level: float | None,
                          _data: fc.ScoredData) -> pd.DataFrame:
    """``fc.compare_model_aucs`` of every score column against `baseline`: each model's overall, subgroup, BPSN
    and BNSP AUCs and its difference from the baseline's, with DeLong's paired intervals at `level`."""
    return fc.compare_model_aucs(_data.y_true, _data.scores, _data.subgroups, baseline=baseline, ci=level)


@memo(SMALL)
def model_calibration_differences(token: str, mapping_key: str, models: tuple, baseline: str, n_bins: int,
                                  strategy: str, min_per_group: int, level: float | None, n_boot: int,
                                  _data: fc.ScoredData) -> pd.DataFrame:
    """``fc.compare_model_calibration`` of the probability columns `models` against `baseline` (one of them): each
    one's ECE of all rows and of every subgroup, and its difference from the baseline's, with a paired bootstrap
    interval (`n_boot` resamples, seed 0) at `level`."""
    return fc.compare_model_calibration(_data.y_true, {m: _data.scores[m] for m in models}, _data.subgroups,
                                        baseline=baseline, n_bins=n_bins, strategy=strategy,
                                        min_per_group=min_per_group, ci=level, n_boot=n_boot, random_state=0)


# The model review: performance at the threshold, the threshold explorer, per-subgroup thresholds ---------------
EXPLORER_POINTS = 101  # thresholds of the explorer's fixed grid (every distinct score when there are fewer)


@memo(SMALL)
def performance(token: str, mapping_key: str, source: str, threshold: float | None, level: float | None, n_boot: int,
                _counts: fc.ConfusionCounts) -> pd.DataFrame:
    """Confusion matrix, accuracy, precision, recall, F1 and selection rate of all rows and each subgroup
    (``fc.performance_table``) of the cached counts `_counts` (keyed as :func:`disparity`); with `level`,
    Wilson intervals and a bootstrap interval of F1 (seed 0)."""
    return fc.performance_table(_counts, ci=level, n_boot=n_boot, random_state=0)


@memo(SMALL)
def explorer_grid(token: str, mapping_key: str, score: str, n_points: int,
                  _tc) -> tuple[np.ndarray, pd.DataFrame]:
    """The explorer's fixed grid of thresholds (``fc.explorer_thresholds``) and every rate of every subgroup
    at each of them (``fc.threshold_curves``): counted once per score and rows, whatever the threshold."""
    grid = fc.explorer_thresholds(_tc, n_points)
    return grid, fc.threshold_curves(_tc, list(text.RATE_LABELS), grid)


@memo(SMALL)
def explorer_curves(token: str, mapping_key: str, score: str, threshold: float, n_points: int,
                    _tc) -> pd.DataFrame:
    """The explorer's curves on ``fc.explorer_thresholds(tc, n_points, include=[threshold])``: the memoized
    grid's curves (:func:`explorer_grid`) with the rates at `threshold` alone added in place, so a new
    threshold counts one threshold, not the grid."""
    grid, curves = explorer_grid(token, mapping_key, score, n_points, _tc)
    if not reads(_tc, threshold):
        return curves
    return _insert_threshold(curves, grid, fc.threshold_curves(_tc, list(text.RATE_LABELS), [threshold]), threshold)


def reads(counts, threshold: float) -> bool:
    """Whether threshold counts answer `threshold` exactly (binned AUC counts of data counted where it lies read
    their bin edges only; rows sorted in memory read every threshold)."""
    return counts.reads(threshold) if isinstance(counts, fc.AucCounts) else True


@memo(SMALL)
def explorer_band(token: str, mapping_key: str, score: str, threshold: float, n_points: int, rule: fc.Rule,
                  reference: str, include_small: bool, _tc) -> pd.DataFrame:
    """Where `rule` holds across the explorer's thresholds (``fc.rule_band``, point estimates), the grid's
    band memoized apart from the threshold's own point."""
    grid, _ = explorer_grid(token, mapping_key, score, n_points, _tc)
    band = _grid_band(token, mapping_key, score, n_points, rule, reference, include_small, _tc)
    if not reads(_tc, threshold):
        return band
    return _insert_threshold(band, grid, fc.rule_band(_tc, rule, [threshold], reference=reference,
                                                      include_small=include_small), threshold)


@memo(SMALL)
def _grid_band(token: str, mapping_key: str, score: str, n_points: int, rule: fc.Rule, reference: str,
               include_small: bool, _tc) -> pd.DataFrame:
    grid, _ = explorer_grid(token, mapping_key, score, n_points, _tc)
    return fc.rule_band(_tc, rule, grid, reference=reference, include_small=include_small)


def _insert_threshold(table: pd.DataFrame, grid: np.ndarray, extra: pd.DataFrame, threshold: float) -> pd.DataFrame:
    """`table` (blocks of ``len(grid)`` rows, thresholds ascending in each) with `extra` (one row per block,
    at `threshold`, blocks in the same order) inserted in order; unchanged when `threshold` is on the grid."""
    n_t = len(grid)
    if not np.isfinite(threshold) or np.any(grid == threshold):
        return table
    pos = int(np.searchsorted(grid, threshold))
    i = np.arange(len(table))
    key = np.concatenate([(i // n_t) * (n_t + 1) + i % n_t + (i % n_t >= pos),
                          np.arange(len(extra)) * (n_t + 1) + pos])
    both = pd.concat([table, extra], ignore_index=True)
    return both.iloc[np.argsort(key, kind="stable")].reset_index(drop=True)


@memo(SMALL)
def per_subgroup_effect(token: str, mapping_key: str, score: str, threshold: float, thresholds: tuple, metrics: tuple,
                        distance: str, reduction: str, reference: str, include_small: bool,
                        _tc) -> tuple[pd.DataFrame, dict]:
    """Per-subgroup thresholds against the single `threshold`, side by side (``fc.subgroup_threshold_effect``,
    the review's table too).

    Returns
    -------
    table : DataFrame
        All rows first, then each subgroup: ``subgroup``, ``threshold`` (its own), and for each rate
        of `metrics` and for accuracy the value at the single threshold (``<name>_single``) and at
        the per-subgroup thresholds (``<name>_own``).
    disparities : dict
        Rate -> (disparity at the single threshold, at the per-subgroup thresholds): the page's
        distance, reduction, reference and include-small option, point estimates.
    """
    effect = fc.subgroup_threshold_effect(_tc, threshold, dict(thresholds), list(metrics), distance_measure=distance,
                                          reduction=reduction, reference=reference, include_small=include_small)
    return effect.table, {row.rate: (row.single, row.own) for row in effect.disparities.itertuples()}
