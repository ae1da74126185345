"""The app's frame, drawn at the top of every page (:func:`draw`): the shared state, a restored review's or a
link's settings, the default sample on first use, and the sidebar (dataset, model, subgroup, interval and slice
options), then the settings in the URL and the context line."""

from __future__ import annotations

from dataclasses import dataclass, replace

import streamlit as st

import fairness_core as fc

from ..data import analysis, loading, profiling
from ..presentation import escape, formats, labels
from ..results import computations
from ..results.summaries import DEFAULTS
from ..session import progress, state
from . import context_line, controls, review_config, review_restore, review_url

ORDER_LABELS = {"worst": "worst first", "name": "by name"}


@dataclass
class Sidebar:
    """The sidebar's places that follow the mapping's subgroups (:func:`draw`'s return): the Subgroups box's count
    and the resolved multiple-comparison adjustment, each an ``st.empty`` that :meth:`recount` writes anew."""

    count: object
    adjust: object
    choice: str

    def recount(self) -> None:
        """Count the subgroups of the session's mapping and resolve the adjustment for them, in place of what the
        sidebar said of the previous mapping (the Data page, on the run that changes the mapping)."""
        self.adjust.empty()   # it says nothing when the choice is not Automatic
        with self.count:
            n_subgroups = _small_rows_caption()
        with self.adjust:
            _resolve_adjust(self.choice, n_subgroups)


def draw(context: bool = True) -> Sidebar | None:
    """Shared state and sidebar, drawn at the top of every page.

    Initialises the session keys, applies a saved review's settings (``fairness_dashboard.settings.review_config.apply_requested``:
    a restore, or a link's file once uploaded; ``fairness_dashboard.settings.review_restore.apply_waiting``: a restore made before its
    data, once data with its columns is loaded; ``fairness_dashboard.settings.review_url.start``: a link's settings, which first ask for
    their data file), opens the default sample on first use, and draws the sidebar:
    the dataset name, the "Model" picker (the score column every analysis page uses), the
    subgroup options (intersections, bins for numeric attributes, minimum size), the interval options (the
    "Automatic" multiple-comparison adjustment resolved for the current subgroups) and the slice. With
    `context` (every page that shows the data) it then writes the settings into the URL
    (``fairness_dashboard.settings.review_url.sync_url``) and starts the page with one line naming the dataset, model
    and slice it shows (``fairness_dashboard.settings.context_line``). The Metric definitions page has neither: its
    URL keeps its ``#anchor``, which a rewrite of the query string would drop.

    Returns the sidebar's places that follow the mapping (:class:`Sidebar`), or None when no data is loaded.
    """
    state.init()
    review_config.apply_requested()  # a configuration requested in the previous run (a restore, a link's file)
    review_restore.apply_waiting()  # a configuration restored before its data, once data with its columns is loaded
    review_url.start()  # a link's settings, on a session's first run (stops here while they wait for their file)
    if st.session_state[state.FRAME] is None and st.session_state[state.FAILED_UPLOAD] is None:
        loading.load_sample(loading.DEFAULT_SAMPLE)
    if st.session_state[state.FRAME] is None:  # a failed upload cleared the data (fairness_dashboard.data.loading.forget_dataset)
        with st.sidebar:
            st.caption("Dataset")
            st.text("none")
        return None
    with st.sidebar:
        st.caption("Dataset")
        st.text(st.session_state[state.DATASET_NAME] or "none")
        mapping = st.session_state[state.MAPPING]
        scores = list(mapping.scores) if mapping is not None else []
        st.session_state[state.MODEL] = controls.kept(
            st.selectbox, labels.MODEL, "model", scores[0], options=scores,
            help="The score column analysed on the Subgroup AUCs, Rate disparities and Calibration pages.",
        ) if scores else None
        subgroups_box = _subgroup_options()
        intervals_box, adjust_choice = _interval_options()
        _slice_picker()
        with subgroups_box:
            count = st.empty()
        with intervals_box:
            adjust = st.empty()
    sidebar = Sidebar(count, adjust, adjust_choice)
    sidebar.recount()
    if context:
        review_url.sync_url()  # the settings (never the data) in the URL, so reload and a shared link reopen this view
        context_line.show()
    return sidebar


def _subgroup_options():
    """Sidebar: intersections, bins and minimum size, applied to the current mapping on every page.

    Returns the expander, so that :func:`_small_rows_caption` can be written into it once the
    slice is known.
    """
    box = st.expander("Subgroups")
    with box:
        options = {
            "intersect": bool(controls.kept(st.checkbox, labels.INTERSECT, "subgroups:intersect", True,
                                   help=labels.HELP[labels.INTERSECT])),
            "n_bins": int(controls.kept(st.number_input, labels.ATTRIBUTE_BINS, "subgroups:n_bins", 4,
                               min_value=fc.CONFIG_BOUNDS["n_bins"][0], max_value=fc.CONFIG_BOUNDS["n_bins"][1], step=1, help=labels.HELP[labels.ATTRIBUTE_BINS])),
            "min_size": int(controls.kept(st.number_input, labels.MIN_SIZE, "subgroups:min_size", 30, min_value=1, step=1,
                                 help=labels.HELP[labels.MIN_SIZE])),
        }
        _display_options()
    st.session_state[state.SUBGROUP_OPTIONS] = options
    mapping = st.session_state[state.MAPPING]
    if mapping is not None and any(getattr(mapping, k) != v for k, v in options.items()):
        st.session_state[state.MAPPING] = replace(mapping, **options)
    return box


def _display_options() -> None:
    """Sidebar, Subgroups box: whether small subgroups enter the summaries, and the order of subgroups,
    both applied on every page (and the Overview)."""
    controls.kept(st.checkbox, labels.INCLUDE_SMALL, "subgroups:include_small", DEFAULTS["include_small"],
         help="Subgroups smaller than the minimum size are always listed, flagged 'small'; by default they are "
              "left out of power means and reductions. Applies to every page and the Overview.")
    controls.kept(st.radio, labels.ORDER_SUBGROUPS, "subgroups:order", DEFAULTS["order"], options=["worst", "name"],
         format_func=ORDER_LABELS.get, horizontal=True,
         help="Worst first: every chart and table lists first the subgroup the page's measure judges worst "
              "(each page's caption says what that is). By name: the subgroups' own order.")


def _small_rows_caption() -> int:
    """How many subgroups are below the minimum size and how many rows they hold (many tiny
    intersections can hold much of the data, all of it left out of the summaries).

    Returns
    -------
    int
        The number of subgroups (0 when the mapping does not fit the rows).
    """
    mapping = st.session_state[state.MAPPING]
    if mapping is None:
        return 0
    try:
        with progress.stage("Validating the rows and building the subgroups ..."):
            key, scored = analysis.analyse(mapping)
    except ValueError:
        return 0  # the page itself says what is wrong with the mapping
    st.caption(computations.small_rows(st.session_state[state.DATASET_TOKEN], key, scored))
    return len(scored.subgroups.names)


def _interval_options():
    """Sidebar: whether to show intervals, their level, the bootstrap size and the multiple-comparison adjustment.

    For data counted where it lies, a caption says what intervals cost there (the engine counts their atoms).
    The options are stored with the adjustment as chosen; :func:`_resolve_adjust` resolves "Automatic" once the
    subgroups are known.

    Returns
    -------
    box : the "Intervals" expander
    adjust : str
        The "Multiple comparisons" choice (a key of ``labels.ADJUSTMENTS``).
    """
    box = st.expander("Intervals")
    with box:
        if analysis.counted():
            st.caption(labels.COUNTED_INTERVALS)
        show = bool(controls.kept(st.checkbox, labels.SHOW_INTERVALS, "intervals:show", True, help=labels.HELP[labels.SHOW_INTERVALS]))
        level = controls.kept(st.selectbox, labels.CONFIDENCE_LEVEL, "intervals:level", 0.95, options=list(labels.LEVELS),
                     format_func=formats.level_text, disabled=not show, help=labels.HELP[labels.CONFIDENCE_LEVEL])
        n_boot = controls.kept(st.selectbox, labels.N_BOOT, "intervals:n_boot", 1000, options=list(labels.N_BOOTS),
                      format_func="{:,}".format, disabled=not show, help=labels.HELP[labels.N_BOOT])
        adjust = controls.kept(st.selectbox, labels.ADJUST, "intervals:adjust", "auto", options=list(labels.ADJUSTMENTS),
                      format_func=labels.ADJUST_LABELS.get, disabled=not show, help=labels.HELP[labels.ADJUST])
    st.session_state[state.INTERVALS] = controls.IntervalOptions(show=show, level=float(level), n_boot=int(n_boot),
                                                        adjust=labels.ADJUSTMENTS[adjust])
    return box, adjust


def _resolve_adjust(choice: str, n_subgroups: int) -> None:
    """Resolve the "Multiple comparisons" `choice` for the current subgroups into the session's interval options
    (``controls.resolve_adjust``: "Automatic" is simultaneous max-t intervals above ``labels.AUTO_ADJUST_ABOVE``
    comparisons per table),
    and say under the control which adjustment the pages use and why (every page's caption names it too)."""
    options = st.session_state[state.INTERVALS]
    n = controls.comparisons_per_table(n_subgroups)
    adjust = controls.resolve_adjust(choice, n)
    st.session_state[state.INTERVALS] = replace(options, adjust=adjust)
    if choice != "auto" or not options.show:
        return
    if adjust is None:
        st.caption(f"Automatic: no adjustment, since a table compares at most {n:,} pairs "
                   f"({labels.AUTO_ADJUST_ABOVE} or fewer).")
    else:
        st.caption(f"Automatic: adjusted for multiple comparisons ({labels.ADJUST_LABELS[adjust]}), since a table "
                   f"compares up to {n:,} pairs "
                   f"(more than {labels.AUTO_ADJUST_ABOVE}). Choose None to see each comparison unadjusted.")


def _slice_picker() -> None:
    """Sidebar: the slice of rows every page analyses, and its size."""
    if analysis.counted():
        with st.expander("Slice"):
            st.caption(labels.COUNTED_SLICE)
        st.session_state[state.SLICE] = fc.Slice()
        return
    frame_, token = st.session_state[state.FRAME], st.session_state[state.DATASET_TOKEN]
    profile = profiling.column_profile(token, frame_)
    offered = profile.loc[profile["numeric"] | (profile["n_unique"] <= profiling.MAX_SLICE_VALUES), "column"].tolist()
    conditions = []
    with st.expander("Slice", expanded=bool(st.session_state.get(state.KEEP_PREFIX + f"slice:{token}:columns"))):
        columns = controls.kept(st.multiselect, labels.SLICE_BY, f"slice:{token}:columns", [], options=offered,
                       help=labels.HELP[labels.SLICE_BY])
        for col in columns:
            values = profiling.slice_values(token, col, frame_)
            if isinstance(values, tuple):  # numeric range
                lo, hi = values
                low, high = controls.kept(st.slider, escape.md(col), f"slice:{token}:{col}:range", (lo, hi), min_value=lo,
                                 max_value=hi)
                conditions.append(fc.Condition(col, low=float(low), high=float(high)))
            else:
                chosen = controls.kept(st.multiselect, escape.md(col), f"slice:{token}:{col}:values", values, options=values)
                if chosen:
                    conditions.append(fc.Condition(col, values=tuple(chosen)))
                else:
                    st.warning(f"Choose at least one value of {escape.md(col)}; until then it does not restrict the rows.")
    current = fc.Slice(tuple(conditions))
    st.session_state[state.SLICE] = current
    n_rows = int(analysis.slice_mask(token, repr(current), frame_, current).sum())
    if current.conditions:
        st.caption(f"**Slice:** {escape.md(current.describe())} — {n_rows:,} of {len(frame_):,} rows")
    else:
        st.caption(f"All {len(frame_):,} rows (no slice)")
