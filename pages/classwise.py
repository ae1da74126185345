"""Class-wise bias: recall, precision and F-score per class and subgroup, and the unweighted average bias,
with intervals and the findings in plain words."""

import streamlit as st

from fairness_core import plotting
from fairness_dashboard.data import analysis
from fairness_dashboard.presentation import captions, coverage, escape, formats
from fairness_dashboard.presentation.definitions import definition_link
from fairness_dashboard.results import computations, summaries
from fairness_dashboard.session import progress, state
from fairness_dashboard.settings import controls, page_frame

page_frame.draw()
st.title("Class-wise bias")
token, mapping_key, scored = analysis.current()
chosen = controls.predictions(scored, st.session_state[state.MODEL], allow_score=len(scored.class_names) == 2)
if chosen is None:
    st.info("This page compares the true class of each row with its predicted class. Map a **Predicted label "
            "column** on the Data page (and tick **Keep all classes** for a label with more than two classes), "
            "or, for a two-class label, a score column to threshold.")
    st.stop()
source, threshold = chosen
with progress.stage("Counting true against predicted classes per subgroup ..."):
    counts = computations.class_counts(token, mapping_key, source or "given", threshold, scored)
if not ((counts.overall.sum(axis=1) > 0) & (counts.overall.sum(axis=0) > 0)).any():
    st.warning("No predicted class is among the label's classes, so every prediction counts as wrong. Check that "
               "the predicted label column uses the label's values.")

# Controls ----------------------------------------------------------------------------------
METRIC_LABELS = {"recall": "Recall", "precision": "Precision", "fscore": "F-score"}
REDUCTION_LABELS = {"std": "standard deviation across subgroups", "difference": "difference of two subgroups"}
c1, c2 = st.columns(2)
with c1:
    metric = controls.kept(st.selectbox, "Class metric", "classwise:metric", summaries.DEFAULTS["classwise:metric"],
                           options=list(METRIC_LABELS),
                           format_func=METRIC_LABELS.get,
                           help="Computed for each class (one against the rest) within each subgroup.")
with c2:
    reduction = controls.kept(st.selectbox, "Across subgroups", "classwise:reduction",
                              summaries.DEFAULTS["classwise:reduction"],
                              options=list(REDUCTION_LABELS), format_func=REDUCTION_LABELS.get,
                              help="How a class's scores in the subgroups are reduced to one number: their "
                                   "population standard deviation, or first minus second of two chosen subgroups.")
names = list(counts.names)
order = None
if reduction == "difference":
    pair = controls.two_largest(scored.subgroups)   # the two largest subgroups by default
    d1, d2, d3 = st.columns(3)
    with d1:
        first = controls.kept(st.selectbox, "First subgroup", "classwise:first", pair[0], options=names)
    with d2:
        second = controls.kept(st.selectbox, "Second subgroup", "classwise:second", pair[1], options=names)
    with d3:
        difference = controls.kept(
            st.radio, "Difference", "classwise:difference", summaries.DEFAULTS["classwise:difference"],
            options=["absolute", "signed"], horizontal=True,
            format_func={"absolute": "absolute |first - second|", "signed": "signed first - second"}.get,
            help="Absolute (default): a class where the first subgroup scores 0.2 higher and one where it scores 0.2 "
                 "lower add up, instead of cancelling to the perfect 0 in the mean over classes. Signed: the "
                 "direction, as audmetric defines the difference.")
    reduction = summaries.classwise_reduction(reduction, difference)
    order = [first, second]
include_small = controls.include_small()
intervals = controls.intervals()
level = intervals.ci

# Computation (from the cached per-subgroup confusion matrices) ------------------------------
try:
    with progress.computing("class-wise bias", level):
        section = summaries.classwise_section(token, mapping_key, counts, source=source or "given",
                                              threshold=threshold, metric=metric, reduction=reduction,
                                              order=None if order is None else tuple(order),
                                              include_small=include_small, intervals=intervals)
        result = section.extra["result"]
except ValueError as exc:
    st.error(escape.md(str(exc)))
    st.stop()

# Rendering -----------------------------------------------------------------------------------
captions.write_findings(section.findings)

used = result.per_class["value"].notna()
m1, m2 = st.columns(2)
m1.metric("Unweighted average bias", formats.tile(result.value),
          help="The mean over classes (each class weighing the same) of the per-class "
               f"{summaries.CLASSWISE_REDUCTIONS[reduction]} of the {METRIC_LABELS[metric]}; perfect 0. "
               + definition_link("uab"))
m1.caption(captions.classwise_caption(result))
m2.metric("Classes used", f"{int(used.sum())} of {len(result.per_class)}",
          help="A class is skipped when fewer than two subgroups have a defined score for it.")
m2.caption(f"{len(result.subgroups)} subgroups take part" + (
    f"; {result.n_excluded:,} rows left out (truth or prediction missing or not a class)" if result.n_excluded
    else ""))
if reduction == "std":
    what = f"standard deviation of the subgroups' {METRIC_LABELS[metric]}"
elif reduction == "absolute_difference":
    what = (f"absolute difference of the {METRIC_LABELS[metric]} of {escape.md(order[0])} and {escape.md(order[1])} "
            "(shown: absolute, so differences of opposite sign in different classes cannot cancel)")
else:
    what = (f"signed difference of the {METRIC_LABELS[metric]}, {escape.md(order[0])} minus {escape.md(order[1])} "
            "(shown: signed, so differences of opposite sign in different classes cancel; choose absolute to see "
            "their size)")
st.caption(f"Per class: the {what}; then the unweighted mean over classes. Perfect value 0."
           + (f" Intervals: {formats.level_text(level)}; Wilson intervals for recall and precision, and for the "
              f"F-score and every reduced value a bootstrap of the confusion cells stratified by subgroup with "
              f"{intervals.n_boot:,} resamples (seed 0)."
              + coverage.note(coverage.classwise_prefixes(metric, reduction))
              if level is not None else ""))

# Worst first: subgroups by their mean score over the classes, lowest first; classes by their |reduced value|.
mean_score = result.table.groupby("subgroup", sort=False)["score"].mean()
subgroup_order = controls.ranked(list(mean_score.index), mean_score.to_numpy(dtype="float64"), descending=False)
st.plotly_chart(plotting.classwise_chart(result.table, metric, title=f"{METRIC_LABELS[metric]} per class and subgroup",
                                         level=level, order=subgroup_order), width="stretch")
st.caption(controls.order_caption(f"subgroups by their mean {METRIC_LABELS[metric]} over the classes, lowest first; "
                                  "classes by their reduced value, largest (in size) first"))
st.subheader("Per class")
per_class = result.per_class
if subgroup_order is not None:
    per_class = per_class.loc[per_class["value"].abs().sort_values(ascending=False, kind="stable").index]
st.dataframe(per_class, hide_index=True, column_config=formats.column_config(per_class.columns))
st.subheader("Per subgroup and class")
shown = controls.in_order(result.table, subgroup_order)
shown = shown.drop(columns=[c for c in ("score", "score_ci_low", "score_ci_high") if c in shown])
st.dataframe(shown, hide_index=True, column_config=formats.column_config(shown.columns))
