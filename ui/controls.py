"""Widgets shared by several pages, whose values survive page switches."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import streamlit as st

from . import state, text


def kept(widget: Callable, label: str, name: str, default: Any, *, options: Sequence | None = None, **kwargs):
    """Render `widget` with a value kept under ``keep:<name>`` across pages and reruns.

    Streamlit drops a widget's own state when its page is left; this mirrors the value under a
    plain key and seeds the widget from it when the page is shown again. With `options`, a kept
    value that is no longer offered falls back to `default`.
    """
    store, wkey = state.KEEP_PREFIX + name, "w:" + name
    value = st.session_state.get(store, default)
    current = st.session_state.get(wkey, value)
    if options is not None:
        options = list(options)
        kwargs["options"] = options
        value = _offered(value, options, default)
        current = _offered(current, options, value)
    st.session_state[wkey] = current

    result = widget(label, key=wkey, **kwargs)
    st.session_state[store] = result
    return result


def _offered(value: Any, options: list, fallback: Any) -> Any:
    if isinstance(value, list):
        return [v for v in value if v in options]
    return value if value in options else fallback


def disparity_controls(names: Sequence[str], page: str, *, default_reduction: str = "max"):
    """Distance, Reduction and Reference controls (with a subgroup picker for a named reference).

    Returns
    -------
    distance : {'diff', 'ratio'}
    reduction : {'max', 'mean'}
    reference : {'rest', 'overall', 'pairwise'} or a subgroup name
    """
    c1, c2, c3 = st.columns(3)
    with c1:
        distance = kept(st.selectbox, text.DISTANCE, f"{page}:distance", "diff", options=["diff", "ratio"],
                        format_func=text.DISTANCE_LABELS.get, help=text.HELP[text.DISTANCE])
    with c2:
        reduction = kept(st.selectbox, text.REDUCTION, f"{page}:reduction", default_reduction,
                         options=["max", "mean"], help=text.HELP[text.REDUCTION])
    with c3:
        choice = kept(st.selectbox, text.REFERENCE, f"{page}:reference", "rest",
                      options=list(text.REFERENCE_LABELS), format_func=text.REFERENCE_LABELS.get,
                      help=text.HELP[text.REFERENCE])
        reference = choice
        if choice == "named":
            reference = kept(st.selectbox, text.REFERENCE_GROUP, f"{page}:reference_group", names[0],
                             options=list(names))
    return distance, reduction, reference


def include_small(page: str) -> bool:
    """Checkbox: let small subgroups enter the summaries."""
    return kept(st.checkbox, text.INCLUDE_SMALL, f"{page}:include_small", False,
                help="Subgroups smaller than the minimum size are always listed, flagged 'small'; "
                     "by default they are left out of power means and reductions.")


def frame() -> None:
    """Shared state and sidebar, drawn at the top of every page.

    Initialises the session keys, opens the default sample on first use, shows the dataset name
    and the "Model" picker (the score column every analysis page uses).
    """
    from . import data  # late import: data imports fairness_core and reads sample files

    state.init()
    if st.session_state[state.FRAME] is None:
        data.load_sample(data.DEFAULT_SAMPLE)
    with st.sidebar:
        st.caption("Dataset")
        st.text(st.session_state[state.DATASET_NAME] or "none")
        mapping = st.session_state[state.MAPPING]
        scores = list(mapping.scores) if mapping is not None else []
        st.session_state[state.MODEL] = kept(
            st.selectbox, text.MODEL, "model", scores[0], options=scores,
            help="The score column analysed on the Subgroup AUCs, Rate disparities and Calibration pages.",
        ) if scores else None
