"""The line at the top of every analysis page: which dataset, model and slice it shows."""

from __future__ import annotations

import streamlit as st

import fairness_core as fc

from ..data import analysis
from ..presentation import escape
from ..session import state


def context_text(dataset: str | None, model: str | None, current_slice: fc.Slice | None, n_rows: int | None,
                 n_total: int | None) -> str:
    """'adult.csv · model p_hgb · slice: all 48,842 rows' (Markdown-safe: data text is escaped).

    Parameters
    ----------
    dataset : str or None
        The dataset's name (file name or sample title).
    model : str or None
        The score column analysed, or None when no score column is mapped.
    current_slice : fairness_core.Slice or None
        The slice chosen in the sidebar (None or no conditions: every row).
    n_rows, n_total : int or None
        Rows in the slice, and in the dataset (None: not known yet, for data counted where it lies
        before its mapping validates).
    """
    parts = [escape.md(dataset) if dataset else "no dataset",
             f"model {escape.md(model)}" if model else "no score column mapped"]
    if current_slice is not None and current_slice.conditions:
        parts.append(f"slice: {escape.md(current_slice.describe())} ({n_rows:,} of {n_total:,} rows)")
    elif n_total is None:
        parts.append("slice: all rows")
    else:
        parts.append(f"slice: all {n_total:,} rows")
    return " · ".join(parts)


def show() -> None:
    """Write the context line (a caption) for the current session; called by
    ``fairness_dashboard.settings.page_frame.draw``."""

    frame, token = st.session_state[state.FRAME], st.session_state[state.DATASET_TOKEN]
    if frame is None:
        return
    if analysis.counted():   # data on this machine: the rows are counted where they lie, with no slice
        mapping = st.session_state[state.MAPPING]
        try:
            n_total = analysis.analyse(mapping)[1].n_input if mapping is not None else None
        except ValueError:
            n_total = None
        st.caption(context_text(st.session_state[state.DATASET_NAME], st.session_state[state.MODEL], None, n_total,
                                n_total))
        return
    current = st.session_state.get(state.SLICE)
    n_rows = (int(analysis.slice_mask(token, repr(current), frame, current).sum())
              if current is not None and current.conditions else len(frame))
    st.caption(context_text(st.session_state[state.DATASET_NAME], st.session_state[state.MODEL], current, n_rows,
                            len(frame)))
