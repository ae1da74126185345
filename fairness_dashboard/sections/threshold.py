"""The Rate disparities page's sections on the decision threshold: performance at the threshold, the
threshold explorer (each rate across thresholds, the band where a rule holds, a slider) and
per-subgroup thresholds. Every number comes from ``fairness_dashboard.results.computations`` (memoized from the
score's sorted ``ThresholdCounts``): a new threshold counts one threshold, never the explorer's grid again."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

import fairness_core as fc
from fairness_core import plotting

from ..presentation import escape, formats, labels
from ..presentation.definitions import definition_link
from ..results import computations
from ..session import progress, state
from ..settings import controls
from . import suggest

PERFORMANCE_TILES = {
    "accuracy": ("Accuracy", "(TP + TN) / rows: the share of rows predicted correctly."),
    "precision": ("Precision", "TP / (TP + FP): the share of predicted positives that are positive."),
    "recall": ("Recall", "TP / (TP + FN): the share of positive rows predicted positive (the true positive rate)."),
    "f1": ("F1", "2 TP / (2 TP + FP + FN): the harmonic mean of precision and recall."),
}
# Rules a reviewer can shade in the explorer besides the page's own rate rules.
EXPLORER_DEFAULT_RULES = ("four_fifths", "equal_opportunity")


def performance_section(token: str, mapping_key: str, source: str, threshold: float | None,
                        counts: fc.ConfusionCounts, order: list | None, intervals) -> None:
    """Overall accuracy, precision, recall and F1 as tiles, and the confusion matrix and every performance
    measure of all rows and each subgroup (in the page's `order`) as a table."""
    level = intervals.ci
    st.subheader("Performance at the threshold")
    with progress.computing("performance", level):
        table = computations.performance(token, mapping_key, source, threshold, level, intervals.n_boot, counts)
    overall = table.iloc[0]
    for col, (name, (label, help_text)) in zip(st.columns(len(PERFORMANCE_TILES)), PERFORMANCE_TILES.items()):
        col.metric(label, formats.tile(float(overall[name])), help=f"{help_text} {definition_link('performance')}")
        if level is not None:
            col.caption(formats.ci_text(float(overall[f"{name}_ci_low"]), float(overall[f"{name}_ci_high"]), level)
                        + (" (bootstrap)" if name == "f1" else " (Wilson)"))
        elif overall["note"] and pd.isna(overall[name]):
            col.caption(escape.md(overall["note"]))
    what = (f"the predictions {source} >= {threshold:g}" if threshold is not None
            else "the given predicted labels")
    st.caption(escape.md(f"All rows, at {what}.") + " The table gives the confusion matrix and each measure per "
               "subgroup" + (", in the order of the rates above" if order is not None else "")
               + "; a measure whose denominator is 0 is undefined, with the reason in its note."
               + (f" Intervals: {formats.level_text(level)}, Wilson for proportions, a bootstrap (seed 0) for F1."
                  if level is not None else ""))
    shown = pd.concat([table.iloc[:1], controls.in_order(table.iloc[1:], order)]).drop(columns="scope")
    st.dataframe(shown, hide_index=True, column_config=formats.column_config(shown.columns))


def explorer_section(token: str, mapping_key: str, scored: fc.ScoredData, score: str | None,
                     threshold: float | None, metrics: list, *, distance: str, reduction: str, reference: str,
                     include_small: bool, max_difference: float, order: list | None, intervals) -> None:
    """Each selected rate of every subgroup across thresholds, the chosen threshold marked, the band where a
    chosen rule holds shaded, a slider that moves the threshold, a suggested threshold (``fairness_dashboard.sections.suggest``) and
    optional per-subgroup thresholds."""
    st.subheader("Threshold explorer")
    if threshold is None:
        st.caption("The explorer follows the rates across the thresholds of a score: "
                   + ("choose **Predictions from** the score at a threshold at the top of the page."
                      if scored.mapping.scores else "map a score column on the Data page."))
        return
    tc = computations.threshold_counts(token, mapping_key, score, scored)
    controls.threshold_slider(scored, score)   # the page's threshold: the whole page follows it
    explorer_charts(token, mapping_key, score, threshold, tc, metrics, distance=distance, reference=reference,
                    include_small=include_small, max_difference=max_difference, order=order,
                    outcome=scored.mapping.positive_outcome)
    suggest.suggest_section(token, mapping_key, scored, score, threshold, tc, metrics, distance=distance,
                            reference=reference, include_small=include_small, max_difference=max_difference,
                            intervals=intervals)
    per_subgroup_thresholds(token, mapping_key, score, threshold, tc, metrics, distance, reduction, reference,
                            include_small, order, outcome=scored.mapping.positive_outcome)


@st.fragment
def explorer_charts(token: str, mapping_key: str, score: str, threshold: float, tc, metrics: list, *, distance: str,
                    reference: str, include_small: bool, max_difference: float, order: list | None,
                    outcome: str = "favourable") -> None:
    """The rule whose band is shaded and each rate's curves across thresholds. A fragment: choosing another rule
    reruns only this section. With an adverse `outcome` the four-fifths and equal opportunity rules are judged (and
    named) on the favourable prediction, as their verdicts are (``fc.outcome_rule``)."""
    rules = {r.name: r for r in (*fc.rate_rules(metrics, distance, max_difference),
                                 *(fc.outcome_rule(r, outcome) for r in fc.DEFAULT_RULES
                                   if r.name in EXPLORER_DEFAULT_RULES))}
    rule = rules[controls.kept(
        st.selectbox, "Shade where this rule holds", "rates:explorer_rule", next(iter(rules)), options=list(rules),
        format_func=lambda name: rules[name].label,
        help="The band of thresholds where the rule's bound is met by the point estimate (no intervals), against "
             "the reference chosen above.")]
    # The curves and the band are drawn on the fixed grid alone, the same at every threshold: their figures are
    # memoized apart from the threshold, whose line is added to a copy.
    with progress.stage("Following the rates across thresholds ..."):
        _, curves = computations.explorer_grid(token, mapping_key, score, computations.EXPLORER_POINTS, tc)
        band = computations.grid_band(token, mapping_key, score, computations.EXPLORER_POINTS, rule, outcome, reference,
                                      include_small, tc)
        at = computations.explorer_band(token, mapping_key, score, threshold, computations.EXPLORER_POINTS, rule, outcome,
                                        reference, include_small, tc)
    at_threshold = at.loc[at["threshold"] == threshold, "holds"]
    ref_text = ("the rest of the population" if rule.metric in ("p_percent_score", "equal_opportunity_score")
                else labels.against(reference))
    n_grid = band["threshold"].nunique()
    if len(at_threshold):
        grid_text = f"{n_grid:,} thresholds over the range of {score}; the chosen {threshold:g} is marked"
        at_text = (f"; at the chosen threshold it **{'holds' if bool(at_threshold.iloc[0]) else 'does not hold'}**. "
                   "The Policy verdicts above rest on the same value, with its interval when intervals are shown.")
    else:   # binned counts of data counted where it lies: the curves run over bin edges
        grid_text = (f"{n_grid:,} bin edges over the range of {score}; the chosen {threshold:g} lies inside a bin, so "
                     "its own rates are those above, counted again by DuckDB")
        at_text = ". The Policy verdicts above assess the chosen threshold."
    st.caption(escape.md(f"Each line is a subgroup's rate at every threshold ({grid_text}); the black line is all "
                       "rows. ")
               + f"Shaded: thresholds where **{escape.md(rule.label)}** holds on the point estimates, against "
               f"{ref_text}" + at_text)
    # One figure, a panel per rate (a chart costs the browser more than its lines). Its JSON form is memoized:
    # plotly's conversion of the arrays took as long as the rest of the explorer's server time.
    drawn = (token, mapping_key, score, tuple(metrics), rule, reference, include_small, tuple(order or ()))
    curves_spec = computations.chart("threshold", drawn, lambda: plotting.threshold_chart(
        curves, metrics, band=band, band_label=f"{rule.label} holds", order=order,
        title=(f"{labels.RATE_LABELS[metrics[0]]} across thresholds" if len(metrics) == 1
               else "Rates across thresholds")).to_plotly_json())
    st.plotly_chart(_marked(curves_spec, threshold, len(metrics)), width="stretch")
    st.caption(controls.order_caption("the order of the rates above (the subgroup's largest disparity at the chosen "
                                      "threshold first); all rows last"))


def _marked(spec: dict, threshold: float, panels: int):
    """A figure of the memoized `spec` (a figure's ``to_plotly_json()``, never modified) with the chosen `threshold`
    as a labelled line in each of its `panels` (``plotting.rule_line_parts``). The figure was validated when it was
    built, and so is the line's form (a test holds it to ``add_rule_line``'s), so it is not validated again (most of
    the cost of a figure of 900 points)."""
    import plotly.graph_objects as go

    parts = [plotting.rule_line_parts(float(threshold), f"chosen threshold {threshold:g}", axis="x", color="#333333",
                                      panel=i) for i in range(1, panels + 1)]
    layout = {**spec["layout"], "shapes": [*spec["layout"].get("shapes", ()), *(line for line, _ in parts)],
              "annotations": [*spec["layout"].get("annotations", ()), *(note for _, note in parts)]}
    return go.Figure({"data": spec["data"], "layout": layout}, _validate=False)


@st.fragment
def per_subgroup_thresholds(token: str, mapping_key: str, score: str, threshold: float, tc,
                            metrics: list, distance: str, reduction: str, reference: str, include_small: bool,
                            order: list | None, outcome: str = "favourable") -> None:
    """A threshold per subgroup (disjoint subgroups only) and its effect on each selected rate and on accuracy,
    beside the single threshold. A fragment: a subgroup's threshold reruns only this section."""
    if not tc.disjoint:
        st.caption("Per-subgroup thresholds need subgroups that do not overlap and cover every row (intersected "
                   "protected attributes, no identity columns), so that each row has exactly one threshold.")
        return
    if not controls.kept(st.toggle, "Per-subgroup thresholds", "rates:per_subgroup", False,
                         help="Give each subgroup its own threshold and compare its rates and the overall accuracy "
                              "with those of the single threshold. The rest of the page keeps the single one."):
        return
    names = list(tc.names) if order is None else [n for n in order if n in tc.names]
    step = 1.0 if bool(np.all(np.mod(tc.levels, 1) == 0)) else 0.01
    if isinstance(tc, fc.ThresholdCounts):
        _suggest_group_thresholds(token, mapping_key, score, threshold, tc, outcome)
    chosen = _subgroup_threshold_inputs(token, score, threshold, names, step)
    unread = [t for t in (threshold, *dict(chosen).values()) if not computations.reads(tc, t)]
    if unread:   # binned AUC counts read bin edges only
        st.info(escape.md(f"The threshold {unread[0]:g} lies inside a score bin of the count tables, which cannot say "
                        "which of its rows reach it. ") + "Choose **AUC score levels: Exact** on the Data page "
                "for per-subgroup thresholds on every row counted where it lies, or analyse a random sample.")
        return
    with progress.stage("Counting per-subgroup predictions ..."):
        table, disparities = computations.per_subgroup_effect(token, mapping_key, score, threshold, chosen, tuple(metrics),
                                                      distance, reduction, reference, include_small, tc)
    table = pd.concat([table.iloc[:1], controls.in_order(table.iloc[1:], names)])
    st.markdown(_effect_sentence(table, disparities, threshold, distance, reduction, reference))
    table = table.assign(threshold=["" if pd.isna(t) else f"{t:g}" for t in table["threshold"]])
    config = {"subgroup": "Subgroup", "threshold": "Own threshold"}
    for name in (*metrics, "accuracy"):
        label = labels.RATE_LABELS.get(name, "Accuracy")
        for side, word in (("single", f"at {threshold:g}"), ("own", "own")):
            config[f"{name}_{side}"] = st.column_config.NumberColumn(f"{label} ({word})", format="%.4g")
    st.dataframe(table, hide_index=True, column_config=config)


GROUP_CONSTRAINTS = {"equalized_odds": "Equalized odds (true and false positive rates)",
                     "equal_opportunity": "Equal opportunity (true positive rates)",
                     "demographic_parity": "Demographic parity (selection rates)"}


def _suggest_group_thresholds(token: str, mapping_key: str, score: str, threshold: float, tc,
                              outcome: str = "favourable") -> None:
    """A threshold per subgroup that keeps a constraint's rates within a tolerance at the least loss of balanced
    accuracy (``fc.group_thresholds``), its cost per subgroup, and a button that fills the boxes below with it."""
    with st.expander("Suggest per-subgroup thresholds", icon=":material/tune:"):
        st.caption("Group-specific thresholds treat groups differently by design, and may not be lawful in every "
                   "setting (e.g. where a protected attribute may not be used at decision time). This says what "
                   "they would cost; it does not make them acceptable.")
        left, middle, right = st.columns(3)
        constraint = left.selectbox("Keep within the tolerance", list(GROUP_CONSTRAINTS), key="rates:group_constraint",
                                    format_func=GROUP_CONSTRAINTS.get)
        tolerance = middle.number_input("Tolerance", min_value=0.0, max_value=1.0, value=0.05, step=0.01,
                                        format="%.3f", key="rates:group_tolerance",
                                        help="The largest difference allowed between two subgroups' rates.")
        objectives = group_objectives(outcome)
        measure = right.selectbox("Objective", list(objectives), key="rates:group_objective",
                                  format_func=objectives.get,
                                  help="What the thresholds optimise over all rows: the highest balanced accuracy or "
                                       "accuracy, or a rate kept as at the single threshold (within half a "
                                       "percentage point where the constraint allows) at the highest balanced "
                                       "accuracy.")
        found = computations.group_thresholds(token, mapping_key, score, threshold, constraint, float(tolerance),
                                              measure, tc)
        if not found.thresholds:
            st.caption(escape.md(found.note))
            return
        st.markdown(_objective_sentence(found, threshold, outcome) + "; the largest "
                    f"difference between two subgroups' rates is {formats.num(found.gap)} on these rows, and on new "
                    f"rows of the same sizes expect up to **{formats.num(found.expected_gap)}** (in four samples of "
                    "five). One deterministic threshold per subgroup, no randomised decisions.")
        if found.note:
            st.warning(escape.md(found.note))
        st.dataframe(found.table.round(4), hide_index=True)
        st.button("Use these thresholds in the boxes below", on_click=_use, args=(token, score, found.thresholds))


def group_objectives(outcome: str) -> dict:
    """The per-subgroup thresholds' objectives (``fc.group_thresholds`` measures) in words; the selection rate is
    the approval (favourable-prediction) rate kept when a positive prediction is adverse (keeping one keeps the
    other)."""
    kept = ("Keep the approval (favourable-prediction) rate" if outcome == "adverse"
            else "Keep the selection rate")
    return {"balanced_accuracy": "Highest balanced accuracy", "accuracy": "Highest accuracy",
            "selection_rate": kept, "true_positive_rate": "Keep the true positive rate",
            "true_negative_rate": "Keep the true negative rate"}


def _objective_sentence(found: fc.GroupThresholds, threshold: float, outcome: str) -> str:
    """The objective with these thresholds against the single one, and how they move who gets the decision
    (Markdown-safe); a kept rate is followed by the balanced accuracy it is kept at."""
    overall = found.table.iloc[-1]   # "All rows"
    at = f"at the single threshold {threshold:g}"
    name, rate, single = _decision_rate(found, outcome)
    decision = f"{name} **{100 * rate:.1f} %** ({100 * single:.1f} % {at})"
    accuracy = (f"balanced accuracy **{formats.num(float(overall['balanced_accuracy']))}** "
                f"({formats.num(float(overall['balanced_accuracy_single']))} {at})")
    if found.measure == "selection_rate":   # the kept rate is the decision rate itself
        parts = [decision, accuracy]
    elif found.measure == "balanced_accuracy":
        parts = [accuracy, decision]
    else:
        name = found.measure.replace("_", " ")   # accuracy, true positive rate, true negative rate
        parts = [f"{name} **{formats.num(found.value)}** ({formats.num(found.single_value)} {at})", accuracy, decision]
    return "With these thresholds, " + "; ".join(parts)


def _decision_rate(found: fc.GroupThresholds, outcome: str) -> tuple:
    """How the thresholds move who gets the decision: the share of all rows predicted positive, as the approval
    (favourable-prediction) rate when a positive prediction is adverse, with these thresholds and at the single
    one: ``(name, rate, single)``."""
    overall = found.table.iloc[-1]   # "All rows"
    rate, single = float(overall["selection_rate"]), float(overall["selection_rate_single"])
    if outcome == "adverse":   # the favourable prediction is the negative one
        return "favourable-prediction (approval) rate", 1.0 - rate, 1.0 - single
    return "selection rate", rate, single


def _use(token: str, score: str, thresholds: dict) -> None:
    """Fill the per-subgroup boxes (their kept store) with `thresholds`."""
    store = st.session_state.setdefault(f"{state.KEEP_PREFIX}subgroup_thresholds:{token}:{score}", {})
    store.clear()
    store.update({name: float(t) for name, t in thresholds.items()})


def _subgroup_threshold_inputs(token: str, score: str, threshold: float, names: list, step: float) -> tuple:
    """A number input per subgroup, four a row; a subgroup never set follows the single threshold.

    Set values are kept per (dataset, score) under ``keep:subgroup_thresholds:<token>:<score>``
    (a plain dict, so they survive page switches). Returns ((subgroup, threshold), ...) in `names` order.
    """
    store = f"{state.KEEP_PREFIX}subgroup_thresholds:{token}:{score}"
    chosen = st.session_state.setdefault(store, {})

    def set_one(name: str, key: str) -> None:
        chosen[name] = float(st.session_state[key])

    def reset() -> None:
        chosen.clear()

    columns = st.columns(4)
    for i, name in enumerate(names):
        key = f"w:subgroup_threshold:{token}:{score}:{name}"
        st.session_state[key] = float(chosen.get(name, threshold))
        columns[i % 4].number_input(escape.md(name), key=key, step=step, format="%g", on_change=set_one,
                                    args=(name, key))
    st.button("Reset to the single threshold", on_click=reset, disabled=not chosen)
    return tuple((name, float(chosen.get(name, threshold))) for name in names)


def _effect_sentence(table: pd.DataFrame, disparities: dict, threshold: float, distance: str, reduction: str,
                     reference: str) -> str:
    """One sentence: overall accuracy and each rate's disparity with per-subgroup thresholds against the single one."""
    overall = table.iloc[0]
    ref = labels.against(reference)
    changes = "; ".join(f"the {labels.RATE_LABELS[m].lower()} disparity goes from {formats.num(single)} to {formats.num(own)}"
                        for m, (single, own) in disparities.items())
    return (f"With these thresholds, overall accuracy is **{formats.num(float(overall['accuracy_own']))}** "
            f"({formats.num(float(overall['accuracy_single']))} at the single threshold {threshold:g})"
            + (f"; {changes} ({reduction}, {labels.DISTANCE_LABELS[distance]}, against {ref})." if changes else "."))
