"""Widgets shared by several pages, whose values survive page switches."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

import streamlit as st

import fairness_core as fc

from ..data import analysis
from ..presentation import escape, labels
from ..results.summaries import DEFAULTS
from ..session import state


@dataclass(frozen=True)
class IntervalOptions:
    """The sidebar's interval options, shared by every page (session key ``state.INTERVALS``).

    Attributes
    ----------
    show : bool
        Whether pages compute and show intervals.
    level : float
        Confidence level (0.90, 0.95 or 0.99).
    n_boot : int
        Bootstrap replicates.
    adjust : {None, 'bonferroni', 'holm', 'fdr_bh'}
        Multiple-comparison adjustment.

    The bootstrap seed is fixed at 0 (in ``fairness_dashboard.results.computations``), so the same data and options give the same
    intervals.
    """

    show: bool = True
    level: float = 0.95
    n_boot: int = 1000
    adjust: str | None = None

    @property
    def ci(self) -> float | None:
        """The `ci` argument of fairness_core: the level, or None when intervals are off."""
        return self.level if self.show else None


def intervals() -> IntervalOptions:
    """The interval options chosen in the sidebar (defaults before the sidebar is drawn)."""
    return st.session_state.get(state.INTERVALS) or IntervalOptions()


def kept(widget: Callable, label: str, name: str, default: Any, *, options: Sequence | None = None, **kwargs):
    """Render `widget` with a value kept under ``keep:<name>`` across pages and reruns.

    Streamlit drops a widget's own state when its page is left; this mirrors the value under a
    plain key and seeds the widget from it when the page is shown again. With `options`, a kept
    value that is no longer offered falls back to `default` (a kept list keeps its entries still offered, and falls
    back when none is).
    """
    store, wkey = state.KEEP_PREFIX + name, "w:" + name
    value = _sane(st.session_state.get(store, default), default, kwargs)
    current = _sane(st.session_state.get(wkey, value), value, kwargs)
    if default is None and widget is st.number_input:   # an optional number: None or a number that fits
        value, current = (v if v is None or _sane(v, 0.0, kwargs) == v else None for v in (value, current))
    if options is not None:
        options = list(options)
        kwargs["options"] = options
        value = _offered(value, options, default)
        current = _offered(current, options, value)
    st.session_state[wkey] = current

    result = widget(label, key=wkey, **kwargs)
    st.session_state[store] = result
    return result


def sections(name: str, shown: dict[str, Callable[[], None]]) -> None:
    """Tabs for a page's secondary sections; only the open one's function runs, and the choice is kept across pages.

    The tabs track their state (``st.tabs(on_change="rerun")``), so each container's ``open`` is True
    for the chosen tab only and a page draws (and computes) that one section: a rerun pays for one
    section, not all of them. The choice is kept under ``keep:<name>`` like :func:`kept`'s values
    (the first tab before any choice, or when the kept title is no longer offered).

    Parameters
    ----------
    name : str
        The key of the choice, e.g. ``"rates:section"``; the tabs' widget key is ``"w:" + name``.
    shown : dict
        Tab title -> the function that draws its section, in tab order.
    """
    titles = list(shown)
    store, wkey = state.KEEP_PREFIX + name, "w:" + name
    current = st.session_state.get(wkey, st.session_state.get(store))
    st.session_state[wkey] = current if current in titles else titles[0]
    tabs = st.tabs(titles, key=wkey, on_change="rerun")
    st.session_state[store] = st.session_state[wkey]
    for title, tab in zip(titles, tabs):
        with tab:
            if tab.open:
                shown[title]()


def setting(name: str, default: Any) -> Any:
    """The current value of the widget `name` drawn by :func:`kept`, or `default` before it was ever drawn.

    Lets a page use a widget's value above the place it is drawn, and the Overview use another
    page's settings without drawing its widgets. The widget's own state (set by a change just
    made) comes first, then the kept value.
    """
    return st.session_state.get("w:" + name, st.session_state.get(state.KEEP_PREFIX + name, default))


DISPARITY_PAGES = ("rates", "cal", "dataset")   # the pages whose disparity tables star comparisons


def comparisons_per_table(n_subgroups: int) -> int:
    """The most comparisons one disparity table holds at the pages' current references.

    A subgroup against the rest or the whole population gives `n_subgroups` comparisons, against a named
    reference group one fewer, every pair of subgroups ``n (n - 1) / 2``; the largest over the Rate disparities,
    Calibration and Dataset metrics pages (the sidebar's adjustment is shared by all of them).

    Parameters
    ----------
    n_subgroups : int
        Subgroups of the current mapping and slice.

    Returns
    -------
    int

    Examples
    --------
    >>> comparisons_per_table(5)   # every page against the rest (the default)
    5
    """
    per_reference = {"rest": n_subgroups, "overall": n_subgroups, "named": max(n_subgroups - 1, 0),
                     "pairwise": n_subgroups * (n_subgroups - 1) // 2}
    return max(per_reference.get(setting(f"{page}:reference", "rest"), n_subgroups) for page in DISPARITY_PAGES)


def resolve_adjust(choice: str, n_comparisons: int) -> str | None:
    """fairness_core's `adjust` for the sidebar's "Multiple comparisons" `choice`.

    An explicit choice is kept as it is; ``"auto"`` (the default) is simultaneous max-t intervals when a table holds
    more than ``labels.AUTO_ADJUST_ABOVE`` comparisons (family-wise error rate 1 - level, as Bonferroni's and Holm's,
    with intervals as narrow as the comparisons' dependence allows), and none otherwise.

    Parameters
    ----------
    choice : {'auto', 'none', 'max_t', 'bonferroni', 'holm', 'fdr_bh'}
    n_comparisons : int
        The most comparisons one table holds (:func:`comparisons_per_table`).

    Returns
    -------
    {None, 'max_t', 'bonferroni', 'holm', 'fdr_bh'}

    Examples
    --------
    >>> resolve_adjust("auto", 5), resolve_adjust("auto", 6), resolve_adjust("none", 50)
    (None, 'max_t', None)
    """
    if choice == "auto":
        return "max_t" if n_comparisons > labels.AUTO_ADJUST_ABOVE else None
    return labels.ADJUSTMENTS[choice]


def largest(subgroups: fc.Subgroups) -> str:
    """The subgroup with the most rows (the first in name order on a tie): the default named reference,
    as the majority is the usual "privileged group" choice (Aequitas)."""
    return subgroups.names[int(np.argmax(subgroups.sizes))]


def two_largest(subgroups: fc.Subgroups) -> tuple[str, str]:
    """The two subgroups with the most rows, largest first: the default pair of a two-subgroup difference."""
    order = np.argsort(-np.asarray(subgroups.sizes), kind="stable")
    names = subgroups.names
    return names[int(order[0])], names[int(order[min(1, len(order) - 1)])]


def disparity_settings(subgroups: fc.Subgroups, page: str, *, default_reduction: str = "max"):
    """(distance, reduction, reference) as :func:`disparity_controls` on `page` last returned them."""
    reference = setting(f"{page}:reference", "rest")
    if reference not in labels.REFERENCE_LABELS:
        reference = "rest"
    if reference == "named":
        names, default = list(subgroups.names), largest(subgroups)
        reference = fc.named_reference(_offered(setting(f"{page}:reference_group", default), names, default))
    return setting(f"{page}:distance", "diff"), setting(f"{page}:reduction", default_reduction), reference


def prediction_settings(scored: fc.ScoredData, score: str | None, *, allow_score: bool = True):
    """(score, threshold), (None, None) or None, as :func:`predictions` last returned them."""
    sources = _prediction_sources(scored, score, allow_score)
    if not sources:
        return None
    source = _offered(setting("predictions:source", sources[0]), sources, sources[0])
    if source == "given":
        return None, None
    return score, float(setting(f"threshold:{score}", analysis.default_threshold(scored, score)))


def _prediction_sources(scored: fc.ScoredData, score: str | None, allow_score: bool) -> list:
    return ([f"score:{score}"] if score and allow_score else []) + (["given"] if scored.predicted is not None else [])


def _sane(value: Any, default: Any, kwargs: dict) -> Any:
    """`value` when it fits a widget whose default is `default` (its type; a finite number within the widget's
    ``min_value`` / ``max_value``; a pair for a range), else `default`. A kept value may come from a saved review or
    a link, and is never trusted to fit its widget: a wrong one falls back instead of breaking the page."""
    if value is None or default is None:
        return value
    if isinstance(default, bool):
        return value if isinstance(value, bool) else default
    if isinstance(default, (int, float)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return default
        low, high = kwargs.get("min_value"), kwargs.get("max_value")
        if (low is not None and value < low) or (high is not None and value > high):
            return default
        if isinstance(default, int):
            return int(value) if float(value).is_integer() else default
        return float(value)
    if isinstance(default, tuple):   # a range slider's (low, high)
        if not isinstance(value, (list, tuple)) or len(value) != len(default):
            return default
        fitted = tuple(_sane(v, d, kwargs) for v, d in zip(value, default))
        return fitted if all(f is v or f == v for f, v in zip(fitted, value)) else default
    if isinstance(default, list):
        return list(value) if isinstance(value, (list, tuple)) else default
    if isinstance(default, str):
        return value if isinstance(value, str) else default
    return value


def _offered(value: Any, options: list, fallback: Any) -> Any:
    if isinstance(value, list):   # a choice none of whose entries is offered any more (other data): the fallback
        offered = [v for v in value if v in options]
        return offered if offered or not value or not isinstance(fallback, list) else fallback
    return value if value in options else fallback


def disparity_controls(subgroups: fc.Subgroups, page: str, *, default_reduction: str = "max"):
    """Distance, Reduction and Reference controls (with a subgroup picker for a named reference,
    offering the subgroups in name order and defaulting to the largest).

    Returns
    -------
    distance : {'diff', 'ratio'}
    reduction : {'max', 'mean'}
    reference : {'rest', 'overall', 'pairwise'} or a subgroup name
    """
    c1, c2, c3 = st.columns(3)
    with c1:
        distance = kept(st.selectbox, labels.DISTANCE, f"{page}:distance", "diff", options=["diff", "ratio"],
                        format_func=labels.DISTANCE_LABELS.get, help=labels.HELP[labels.DISTANCE])
    with c2:
        reduction = kept(st.selectbox, labels.REDUCTION, f"{page}:reduction", default_reduction,
                         options=["max", "mean"], help=labels.HELP[labels.REDUCTION])
    with c3:
        choice = kept(st.selectbox, labels.REFERENCE, f"{page}:reference", "rest",
                      options=list(labels.REFERENCE_LABELS), format_func=labels.REFERENCE_LABELS.get,
                      help=labels.HELP[labels.REFERENCE])
        reference = choice
        if choice == "named":
            reference = fc.named_reference(kept(
                st.selectbox, labels.REFERENCE_GROUP, f"{page}:reference_group", largest(subgroups),
                options=list(subgroups.names),
                help="Default: the largest subgroup (most rows), the usual choice of a reference group."))
    return distance, reduction, reference


def predictions(scored: fc.ScoredData, score: str | None, *, allow_score: bool = True):
    """"Predictions from" radio (the score at a threshold, or the given predicted label column) and the threshold.

    The choice and the threshold (kept per score column) are shared by every page that uses
    predictions. Returns ``(score, threshold)`` for a thresholded score, ``(None, None)`` for the
    given column, or None when neither is available.
    """
    sources = _prediction_sources(scored, score, allow_score)
    if not sources:
        return None
    source = kept(
        st.radio, "Predictions from", "predictions:source", sources[0], options=sources, horizontal=True,
        format_func=lambda s: escape.md(f"{score} >= threshold" if s.startswith("score:")
                                      else f"the predicted label column ({scored.mapping.predicted_label})"))
    if source == "given":
        return None, None
    lo, hi, integer = scored.score_ranges[score]
    threshold = kept(st.number_input, labels.THRESHOLD, f"threshold:{score}", analysis.default_threshold(scored, score),
                     step=1.0 if integer else 0.01, format="%g", help=labels.HELP[labels.THRESHOLD])
    st.caption(escape.md(f"{score} ranges from {lo:g} to {hi:g}; predicted positive = {score} >= {threshold:g}."))
    return score, float(threshold)


def threshold_slider(scored: fc.ScoredData, score: str, label: str = "Move the threshold") -> float | None:
    """A slider over `score`'s range that moves the same threshold as :func:`predictions`' number input.

    Both edit the value kept under ``threshold:<score>`` (one per score column). The slider is seeded
    from it on every run; its change is written, in its callback (before the script reruns), to the
    number input's state and the kept value, so the number input drawn higher up the page shows it in
    the same run (no second rerun). Its range is the score's, widened to the chosen threshold and
    rounded outwards to its step (1 for integer scores, else a power of ten near 1/100 of the range).
    On data counted where they lie with intervals, a move lands on the nearest counted edge
    (``counted_data.counted_edges``): there the threshold is read off the counted atoms, anywhere else it would
    cost a scan of every row.
    Returns the threshold, or None (no slider) when the score is constant.
    """
    from ..data import counted_data

    name, slider_key = f"threshold:{score}", f"w:slider:threshold:{score}"
    edges = counted_data.counted_edges(scored, score)
    lo, hi, integer = scored.score_ranges[score]
    current = float(setting(name, analysis.default_threshold(scored, score)))
    if hi <= lo:
        return None
    step = 1.0 if integer else float(10.0 ** round(np.log10((hi - lo) / 100)))
    digits = max(0, -int(np.floor(np.log10(step))))
    lo = min(round(float(np.floor(lo / step) * step), digits), current)
    hi = max(round(float(np.ceil(hi / step) * step), digits), current)
    st.session_state[slider_key] = current

    def moved() -> None:
        value = float(st.session_state[slider_key])
        if edges is not None and len(edges):   # the nearest counted edge: no scan
            value = float(edges[np.argmin(np.abs(edges - value))])
        else:
            value = round(value, digits)
        st.session_state["w:" + name] = st.session_state[state.KEEP_PREFIX + name] = value

    snaps = edges is not None and len(edges) > 0
    st.slider(label, min_value=lo, max_value=hi, step=step, key=slider_key, on_change=moved, format="%g",
              help=f"The same threshold as the {labels.THRESHOLD} box at the top of the page: moving one moves the "
                   "other." + (" On these counted rows it moves to the nearest counted edge, which needs no scan."
                               if snaps else ""))
    if snaps:
        st.caption(f"The slider moves to the nearest of the {len(edges):,} counted edges of {escape.md(score)} "
                   "(answered from the counted atoms, no scan of the rows).")
    return current


def include_small() -> bool:
    """Whether small subgroups enter the summaries: the one sidebar option (Subgroups box) every page uses."""
    return bool(setting("subgroups:include_small", DEFAULTS["include_small"]))


def worst_first() -> bool:
    """Whether pages order subgroups worst first (the sidebar's "Order subgroups"), else by name."""
    return setting("subgroups:order", DEFAULTS["order"]) == "worst"


def ranked(names: Sequence[str], values, *, descending: bool) -> list | None:
    """`names` worst first by `values` (largest first when `descending`; NaN last; ties in name order),
    or None when subgroups are ordered by name (charts and tables then keep their own order)."""
    if not worst_first():
        return None
    v = np.asarray(values, dtype=np.float64)
    key = np.where(np.isnan(v), np.inf, -v if descending else v)
    return [names[i] for i in np.argsort(key, kind="stable")]


def disparity_order(tables, names: Sequence[str], *, pairwise: bool) -> list | None:
    """Subgroups by their largest ``disparity`` over comparison `tables`, largest first (None: by name).

    A pairwise comparison counts for both of its subgroups; otherwise only the ``subgroup`` side
    counts (a named reference, compared with every other, is not itself ranked: it comes last).
    """
    worst = dict.fromkeys(names, np.nan)
    for table in tables:
        for side in ("subgroup", "reference") if pairwise else ("subgroup",):
            for name, value in zip(table[side], table["disparity"].astype("float64")):
                if name in worst and not np.isnan(value):
                    worst[name] = value if np.isnan(worst[name]) else max(worst[name], value)
    return ranked(list(names), [worst[n] for n in names], descending=True)


def in_order(table, order, *, column: str = "subgroup"):
    """`table`'s rows with `column` in the order of `order` (stable; others last); unchanged for None."""
    if order is None:
        return table
    rank = {name: i for i, name in enumerate(order)}
    key = np.array([rank.get(name, len(rank)) for name in table[column]], dtype=np.int64)
    return table.iloc[np.argsort(key, kind="stable")]


def by_value(table, column: str = "disparity", *, descending: bool = True):
    """`table` sorted by `column`, worst first (NaN last, stable) when subgroups are ordered worst first."""
    if not worst_first() or column not in table.columns:
        return table
    return table.sort_values(column, ascending=not descending, na_position="last", kind="stable")


def order_caption(worst: str) -> str:
    """The caption that says how subgroups are ordered; `worst` says what "worst" means on the page."""
    if worst_first():
        return (f"Subgroups are ordered worst first: {worst}. Sidebar, Subgroups, **{labels.ORDER_SUBGROUPS}** "
                "switches to name order.")
    return f"Subgroups are in name order (sidebar, Subgroups, **{labels.ORDER_SUBGROUPS}**: worst first)."
