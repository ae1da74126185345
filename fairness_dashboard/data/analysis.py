"""The session's analysed rows: the current dataset under its mapping and the sidebar's slice, validated once.

Results are memoized per session (:func:`fairness_dashboard.session.memo.memo`: the objects themselves, in
``st.session_state``, never pickled, bounded, released when the session ends), keyed by small
values: the dataset token (a sample id, or the SHA-256 of the uploaded bytes), the mapping and
slice (``mapping_key``), and the options the result depends on. Large objects are passed with a
leading underscore and are not part of the key. Rows and subgroups (``ScoredData``) are keyed by
token, mapping and slice; a new minimum subgroup size reuses them (only the small flags change).
For data counted where it lies (``fairness_dashboard.data.local``) the rows are its count tables. What is computed from
the rows is in ``fairness_dashboard.results.computations``.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import streamlit as st

import fairness_core as fc

from ..presentation import escape
from ..session import state
from ..session.memo import memo
from . import counted_data, local

# Entries per memoized function and session: the large ones (rows of a mapping) few, small results many.
LARGE, COUNTS, SMALL = 2, 8, 64
EMPTY_SLICE_MESSAGE = (
    "The slice ({slice}) keeps none of the {n:,} rows of the file, so there is nothing to analyse. Widen it in the "
    "sidebar under Slice: remove a condition, keep more values, or move the ends of a range."
)
FAILED_UPLOAD_MESSAGE = (
    "No data is loaded: the last upload, {name}, could not be loaded, so the previous file and its results were "
    "cleared. The **Data** page says why; load another file or a sample there."
)


@memo(LARGE)
def slice_mask(token: str, slice_key: str, _frame: pd.DataFrame, _slice: fc.Slice):
    """Boolean mask of the rows of the dataset in the slice (slice_key = repr of the slice)."""
    return _slice.mask(_frame)


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


def analyse(mapping: fc.ColumnMapping) -> tuple[str, fc.ScoredData]:
    """(cache key, ScoredData) of the current dataset under `mapping` and the sidebar's slice.

    Raises ValueError for a bad mapping or an empty slice.
    """
    rows = replace(mapping, min_size=fc.ColumnMapping.min_size)
    token = st.session_state[state.DATASET_TOKEN]
    st.session_state[state.NOT_COMPUTED] = None
    if counted():
        base = f"{rows!r}|auc={st.session_state[state.LOCAL_AUC]}"
        counts = local_counts(token, base, st.session_state[state.LOCAL_SOURCE], rows,
                              local.AUC_LEVELS[st.session_state[state.LOCAL_AUC]])
        atoms = intervals_shown()
        if atoms:   # the bootstrap's atoms: one more GROUP BY per table, and per threshold
            counts = atom_counts(token, base, st.session_state[state.LOCAL_SOURCE], counts)
        if counts.not_computed:   # exact AUCs past their bound; the weighted bias AUC score's interval past its own
            st.session_state[state.NOT_COMPUTED] = "Not computed for these counts: " + "; ".join(
                counts.not_computed) + "."
        key = f"{base}|atoms={atoms}|min_size={mapping.min_size}"  # see rows_key
        return key, counts_data(token, key, mapping.min_size, counts)
    current_slice = rows_slice()
    key = f"{rows!r}|{current_slice!r}|min_size={mapping.min_size}"  # see rows_key
    frame = st.session_state[state.FRAME]
    # Rows in memory: intervals whatever the membership patterns (many overlapping identity columns make thousands;
    # above a few hundred the bootstrap reweights buckets of rows, at a cost that does not grow with them).
    return key, scored(token, key, frame, mapping, current_slice)


def counted() -> bool:
    """True when the current dataset is data on this machine analysed from its count tables (no rows in memory)."""
    return st.session_state.get(state.LOCAL_SOURCE) is not None and st.session_state.get(state.LOCAL_ROWS) == "counts"


@memo(LARGE)
def local_counts(token: str, rows_key: str, _source: local.LocalSource, _mapping: fc.ColumnMapping, _auc_bins):
    """Every count table of the local source under the mapping (``fc.engines.scored_counts`` by DuckDB), once per
    rows key (the mapping but its minimum size, and the AUC levels); raises ValueError as it does."""
    return local.counts(_source, _mapping, _auc_bins)


@memo(LARGE)
def atom_counts(token: str, rows_key: str, _source: local.LocalSource, _counts):
    """`_counts` with the atoms the bootstrap resamples (``local.with_atoms``), once per rows key; raises ValueError
    as the engine does."""
    return local.with_atoms(_source, _counts)


def intervals_shown() -> bool:
    """Whether the sidebar's "Show intervals" is on (its kept value: ``controls.kept``), whatever a run made of it."""
    return bool(st.session_state.get(state.KEEP_PREFIX + "intervals:show", True))


@memo(COUNTS)
def counts_data(token: str, mapping_key: str, min_size: int, _counts) -> counted_data.CountsData:
    """The pages' view of the count tables `_counts`, subgroups flagged small below `min_size`."""
    return counted_data.CountsData.of(_counts, min_size)


def needs_rows(what: str) -> bool:
    """Say that `what` needs the rows (data counted where it lies) and how to get a sample; True if so."""
    if not counted():
        return False
    st.info(local.NEEDS_ROWS.format(what=what, n=local.SAMPLE_ROWS))
    return True


def class_sizes(scored) -> pd.Series:
    """Kept rows per class of the label (its values as text), sorted by class."""
    if isinstance(scored, counted_data.CountsData):
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


def empty_slice() -> str | None:
    """The message for a sidebar slice that keeps no row of the current dataset (Markdown-safe), else None."""
    frame, current_slice = st.session_state.get(state.FRAME), st.session_state.get(state.SLICE)
    if frame is None or current_slice is None or not current_slice.conditions:
        return None
    if slice_mask(st.session_state[state.DATASET_TOKEN], repr(current_slice), frame, current_slice).any():
        return None
    return EMPTY_SLICE_MESSAGE.format(slice=escape.md(current_slice.describe()), n=len(frame))


def current():
    """The current (token, cache key, ScoredData), or stop the page with a pointer to the Data page.

    The cache key identifies the mapping and the slice; every cached computation is keyed by it.
    """
    mapping = st.session_state.get(state.MAPPING)
    frame = st.session_state.get(state.FRAME)
    failed = st.session_state.get(state.FAILED_UPLOAD)
    if frame is None and failed is not None:
        st.warning(FAILED_UPLOAD_MESSAGE.format(name=escape.md(failed[1])))
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
        st.warning(local.CHANGED.format(label=escape.md(repr(source.label))))
        st.stop()
    try:
        key, data = analyse(mapping)
    except ValueError as exc:
        st.error(escape.md(str(exc)))
        st.stop()
    if st.session_state[state.NOT_COMPUTED]:   # what these counts cannot give (analyse says why)
        st.info(escape.md(st.session_state[state.NOT_COMPUTED]))
    if len(data.subgroups.names) < 2:
        st.warning(f"Only one subgroup ({escape.md(', '.join(data.subgroups.names))}) is in the analysed rows, so "
                   "there is nothing to compare it with. Choose other protected attributes on the Data page or "
                   "widen the slice in the sidebar.")
    return st.session_state[state.DATASET_TOKEN], key, data


def current_score(purpose: str) -> str:
    """The score column chosen under Model, or stop the page saying it needs one for `purpose`."""
    score = st.session_state.get(state.MODEL)
    if score is None:
        st.info(f"This page needs a score column ({purpose}). Choose one under Score column on the Data page.")
        st.stop()
    return score
