"""Rate disparities: rates per subgroup at a decision threshold, their disparities and equalized odds,
with intervals, the findings in plain words and the verdicts of the policy rules."""

import streamlit as st

from fairness_core import plotting, summarize_verdicts
from fairness_dashboard.data import analysis, profiling
from fairness_dashboard.presentation import captions, coverage, escape, formats, labels, tiles
from fairness_dashboard.presentation.definitions import RATE_KEYS, definition_link
from fairness_dashboard.results import computations, summaries
from fairness_dashboard.sections import compare, comparison_table
from fairness_dashboard.sections import threshold as threshold_sections
from fairness_dashboard.session import progress, state
from fairness_dashboard.settings import controls, page_frame

page_frame.draw()
st.title("Rate disparities")
token, mapping_key, scored = analysis.current()
score = st.session_state[state.MODEL]
# The point first, above the controls: the places of the Policy (the bound, each verdict) and the Findings are kept here and
# written last (policy_and_findings), so that the browser draws the controls and charts below while the server
# computes them.
policy_box, findings_box = st.container(), st.container()

# Controls ----------------------------------------------------------------------------------
source, threshold = controls.predictions(scored, score)
source = source or "given"
with progress.stage("Counting predictions per subgroup ..."):
    counts = computations.confusion(token, mapping_key, source, threshold, scored)

metrics = controls.kept(st.multiselect, "Rates", "rates:metrics", summaries.DEFAULTS["rates:metrics"],
                        options=list(labels.RATE_LABELS), format_func=labels.RATE_LABELS.get)
distance, reduction, reference = controls.disparity_controls(scored.subgroups, "rates")
include_small = controls.include_small()
intervals = controls.intervals()
level = intervals.ci
if not metrics:
    st.info("Choose one or more rates above.")
    st.stop()


def disparity(metric: str, dist: str = distance, red: str = reduction):
    """A reduced disparity of the cached counts, with intervals when they are on (cached)."""
    return computations.disparity(token, mapping_key, source, threshold, metric, dist, red, reference, include_small, level,
                          intervals.n_boot, intervals.adjust, counts)


# Computation (post-aggregation only: the counts above are cached) -------------------------
with progress.computing("rate disparities", level):
    rates = counts.table(ci=level)
    results = {m: disparity(labels.RATE_TO_METRIC[m]) for m in metrics}
    comparisons = {m: s.table for m, s in results.items()}
    odds = disparity("equalized_odds")
# The bound's widget is drawn under Policy (at the top of the page, written last); its current value is read here.
max_difference = controls.setting("rates:max_difference", summaries.DEFAULTS["rates:max_difference"])


def conclusions():
    """The findings and verdicts (``summaries.rate_section``: memoized, so computed once whichever part asks first)."""
    with progress.computing("the findings and verdicts", level):
        return summaries.rate_section(token, mapping_key, counts, source=source, threshold=threshold, metrics=metrics,
                                      distance=distance, reference=reference, include_small=include_small,
                                      intervals=intervals, max_difference=max_difference, mapping=scored.mapping)


ref_text = labels.against(reference)  # article included
pairwise = labels.reference_mode(reference) == "pairwise"
order = controls.disparity_order(list(comparisons.values()), list(rates["subgroup"]), pairwise=pairwise)
perfect = "0" if distance == "diff" else "1"

# Rendering: the point first (verdicts and findings, in their places above the controls; then the rates chart and
# the headline disparities), then the one secondary section the user opened.


def policy_and_findings(section) -> None:
    """The Policy (the bound, each verdict, their tally) and the Findings, written into their places above."""
    with policy_box:
        policy(section.verdicts)
    with findings_box:
        captions.write_findings(section.findings)


def policy(verdicts) -> None:
    """The bound's widget, each verdict and their tally."""
    st.subheader("Policy")
    if distance == "diff":
        controls.kept(st.number_input, labels.MAX_DIFFERENCE, "rates:max_difference",
                      summaries.DEFAULTS["rates:max_difference"], min_value=0.0, max_value=1.0, step=0.01,
                      format="%.3f", help=labels.HELP[labels.MAX_DIFFERENCE])
    tally = summarize_verdicts(verdicts).attrs["counts"]
    for verdict in verdicts:
        st.markdown(captions.verdict_markdown(verdict))
    st.caption("Verdicts: " + ", ".join(f"{n} {labels.STATUS_WORDS[status]}" for status, n in tally.items() if n)
               + f". The disparity rules are assessed on the largest disparity (max) against {ref_text}, whatever the "
               "Reduction below" + ("; ratio rules only, since Distance is ratio" if distance == "ratio" else
                                    "; the ratio band [0.8, 1.25] applies when Distance is ratio") + ". "
               + ("A rule passes when its whole interval meets the bound, fails when the whole interval breaks it, "
                  "and is inconclusive when the interval straddles the bound." if level is not None else
                  "Intervals are off, so each verdict rests on the point estimate alone."))


reference_label = labels.reference_legend(reference)
fig = plotting.rate_chart(rates, metrics, None if pairwise else comparisons,
                          reference_label=reference_label, title="Rates per subgroup", level=level, order=order)
st.plotly_chart(fig, width="stretch")
st.caption(controls.order_caption(f"the largest disparity ({labels.DISTANCE_LABELS[distance]}) of the subgroup over "
                                  f"the rates chosen, against {ref_text}, largest first"
                                  + (" (a named reference itself last)" if labels.reference_mode(reference) == "named"
                                     else "")))

cols = tiles.row(len(metrics) + 1)
for col, m in zip(cols, metrics):
    s = results[m]
    col.metric(f"{labels.RATE_LABELS[m]} disparity ({reduction})", formats.tile(s.value),
               help=f"Perfect value {perfect}. Over {s.n_used} comparisons; {s.n_small_excluded} with a small "
                    f"subgroup, {s.n_undefined} undefined and {s.n_infinite} infinite "
                    f"{'left out' if reduction == 'mean' else 'among them'}. "
                    + definition_link(RATE_KEYS[m]))
    col.caption(captions.disparity_caption(s, m))
cols[-1].metric(f"Equalized odds ({reduction})", formats.tile(odds.value),
                help="Per comparison the larger of the TPR and FPR disparities, then reduced. "
                     + definition_link("equalized-odds"))
cols[-1].caption(captions.disparity_caption(odds, None))
st.caption(f"Each subgroup is compared with {ref_text}; distance: {labels.DISTANCE_LABELS[distance]}; "
           f"perfect value {perfect}."
           + (f" Intervals: {formats.level_text(level)}, bootstrap with {intervals.n_boot:,} resamples (seed 0)"
              + (f", adjusted per table ({labels.ADJUST_LABELS[intervals.adjust]})" if intervals.adjust else "")
              + "." + coverage.note(coverage.rate_prefixes(metrics, distance, reduction, intervals.adjust, reference))
              if level is not None else ""))



# Secondary sections: the user opens one, and only that one is computed and drawn -------------------------
def tables_section() -> None:
    """The rates of every subgroup and, per rate, its comparisons with the reference."""
    st.subheader("Rates per subgroup")
    st.dataframe(controls.in_order(rates, order), hide_index=True, column_config=formats.column_config(rates.columns))
    st.subheader("Disparities")
    inner = st.tabs([labels.RATE_LABELS[m] for m in metrics] + ["Equalized odds"])
    for tab, m in zip(inner, metrics):
        with tab:
            comparison_table.draw(
                comparisons[m], pairwise=pairwise, order=order, level=level,
                title=f"{labels.RATE_LABELS[m]}: every pair of subgroups", distance_measure=distance,
                value_label=labels.RATE_LABELS[m].lower())
    with inner[-1]:
        comparison_table.draw(
            odds.table, pairwise=pairwise, order=order, level=level, title="Equalized odds: every pair of subgroups",
            distance_measure=distance, label=f"Equalized odds ({labels.DISTANCE_LABELS[distance]})")


def theil_section() -> None:
    """The Theil index of each subgroup against the reference, and the individual and between-group indices."""
    st.subheader("Inequality of benefits (Theil index)")
    with progress.computing("the Theil index", level):
        theil = computations.theil(token, mapping_key, source, threshold, reference, reduction, include_small, level,
                                   intervals.n_boot, intervals.adjust, scored.mapping.positive_outcome, counts)
        individual, between = computations.theil_indices(token, mapping_key, source, threshold, level,
                                                         intervals.n_boot, scored.mapping.positive_outcome, counts)
    t0, t1, t2 = st.columns(3)
    t0.metric(f"Theil index ({reduction})", formats.tile(theil.value),
              help="Per comparison the between-group Theil index of the subgroup and its reference (benefit "
                   "b = prediction - label + 1); perfect 0. It has no distance option. "
                   + definition_link("theil-disparity"))
    t0.caption(captions.disparity_caption(theil, None))
    t1.metric("Individual Theil index", formats.tile(float(individual)),
              help="Inequality of the benefit b = prediction - label + 1 over all rows (Speicher et al. 2018); "
                   "0 when every row gets the same benefit. " + definition_link("theil-individual"))
    if level is not None:
        t1.caption(captions.theil_caption(individual))
    if between is not None:
        t2.metric("Between-group Theil index", formats.tile(float(between)),
                  help="The part of the inequality that lies between subgroups: each row's benefit replaced by its "
                       "subgroup's mean. " + definition_link("theil-between"))
        if level is not None:
            t2.caption(captions.theil_caption(between))
    else:
        t2.metric("Between-group Theil index", "n/a",
                  help="Needs subgroups that do not overlap (intersected protected attributes, no identity columns). "
                       + definition_link("theil-between"))
    st.caption("Subgroup and reference values are mean benefits; the disparity is the between-group Theil "
               "index of the two groups (0 when their mean benefits are equal)."
               + (" Its interval is the bootstrap percentile interval of the index; since the index is never "
                  "below 0, whether the interval excludes parity is tested on the difference of the two mean "
                  "benefits." if level is not None else ""))
    comparison_table.draw(
        theil.table, pairwise=pairwise, order=order, level=level, title="Theil index: every pair of subgroups",
        value_label="mean benefit", label="Between-group Theil index")


def ratio_scores_section() -> None:
    """The p% and equal opportunity scores of each subgroup against the rest, their chart and tables."""
    p_percent, opportunity = (conclusions().extra[k] for k in ("p_percent", "opportunity"))
    st.subheader("p% score and equal opportunity score")
    st.caption("Each subgroup against the rest of the population: min(a / b, b / a) of the selection rates "
               "(p% score) and of the true positive rates (equal opportunity score). 1 is parity; a p% score "
               "below 0.8 fails the 80 % (four-fifths) rule. Small subgroups are shown but left out of the minimum.")
    s1, s2 = st.columns(2)
    for col, label, result, key in ((s1, "p% score (min)", p_percent, "p-percent"),
                                    (s2, "Equal opportunity score (min)", opportunity, "equal-opportunity")):
        col.metric(label, formats.tile(result.value),
                   help=f"Minimum over {result.n_used} subgroups; {result.n_small_excluded} small and "
                        f"{result.n_undefined} undefined left out. " + definition_link(key))
        col.caption(captions.ratio_score_caption(result, level))
    ratio_tables = {"p% score": p_percent.table, "Equal opportunity score": opportunity.table}
    # Worst first: each subgroup's lower score of the two, lowest first.
    both = p_percent.table[["subgroup", "score"]].merge(opportunity.table[["subgroup", "score"]], on="subgroup",
                                                       how="left")
    ratio_order = controls.ranked(list(both["subgroup"]), both[["score_x", "score_y"]].min(axis=1, skipna=True),
                                  descending=False)
    # Each subgroup against the rest, whatever the Reference, Distance and Reduction above: those do not redraw it.
    ratio_key = (token, mapping_key, source, threshold, include_small, level, intervals.n_boot,
                 tuple(ratio_order or ()))
    st.plotly_chart(computations.chart("ratio_scores", ratio_key, lambda: plotting.ratio_score_chart(
        ratio_tables, threshold=summaries.DEFAULT_RULES["four_fifths"].bound, title="Each subgroup against the rest",
        level=level, order=ratio_order)), width="stretch")
    st.caption(controls.order_caption("the lower of its p% and equal opportunity scores, lowest first"))
    for tab, (name, table) in zip(st.tabs(list(ratio_tables)), ratio_tables.items()):
        with tab:
            table = controls.by_value(table, "score", descending=False)
            st.dataframe(table, hide_index=True, column_config=formats.column_config(table.columns))


@st.fragment
def correlation_section(token: str, mapping_key: str, scored, source: str, threshold, level) -> None:
    """The correlation score and its column picker: a new column reruns only this section."""
    st.subheader("Correlation score")
    if analysis.needs_rows("The correlation score"):
        return
    mapping = scored.mapping
    numeric = profiling.numeric_columns(token, st.session_state[state.FRAME])
    candidates = [c for c in numeric if c not in (mapping.label, *mapping.scores, mapping.predicted_label, mapping.weight)]
    if not candidates:
        st.caption("The data have no numeric column to correlate the predictions with.")
        return
    preferred = ([c for c in (*mapping.protected, *mapping.indicators) if c in candidates]
                 + profiling.feature_columns(token, st.session_state[state.FRAME], mapping) + candidates)
    column = controls.kept(st.selectbox, "Correlate predictions with", "rates:correlation_column", preferred[0],
                           options=candidates, help="A numeric column, such as age: the score is -|Pearson r| "
                                                    "between the predicted labels and it (scikit-lego); 0 is best, -1 "
                                                    "the worst.")
    weighted = mapping.weight is not None   # Fisher's interval assumes rows of equal weight: none with weights
    with progress.computing(f"the correlation with {escape.md(column)}", level):
        value, n_missing = computations.correlation(token, mapping_key, source, threshold, column, scored,
                                                    level=None if weighted else level)
    st.metric(f"Correlation score ({escape.md(column)})", formats.tile(float(value)),
              help="-|Pearson r| between the predicted labels (1 = positive) and the column; 0 means no linear "
                   "association. Undefined when either is constant. " + definition_link("correlation"))
    if level is not None and not weighted:
        st.caption(captions.correlation_caption(value) + "." + coverage.note(["correlation score"]))
    elif weighted:
        st.caption(f"Weighted by {escape.md(mapping.weight)}: the weighted Pearson correlation; no interval with "
                   "sample weights (Fisher's z interval assumes rows of equal weight).")
    if n_missing:
        st.caption(f"{n_missing:,} rows with a missing or infinite {escape.md(column)} are left out of this score.")


SECTIONS = {
    "Tables": tables_section,
    # Confusion matrix, accuracy, precision, recall, F1 and selection rate at the same predictions.
    "Performance at the threshold": lambda: threshold_sections.performance_section(
        token, mapping_key, source, threshold, counts, order, intervals),
    "Theil index": theil_section,
    "p% scores": ratio_scores_section,
    # Each rate across thresholds, a slider for the threshold, per-subgroup thresholds (score predictions only).
    "Threshold explorer": lambda: threshold_sections.explorer_section(
        token, mapping_key, scored, source, threshold, metrics, distance=distance, reduction=reduction,
        reference=reference, include_small=include_small, max_difference=float(max_difference), order=order,
        intervals=intervals),
    "Correlation": lambda: correlation_section(token, mapping_key, scored, source, threshold, level),
    # Every mapped score column side by side, each at its own threshold (two or more mapped).
    "Compare models": lambda: compare.rate_section(
        token, mapping_key, scored, metrics=metrics, distance=distance, reduction=reduction, reference=reference,
        include_small=include_small, intervals=intervals, max_difference=float(max_difference)),
}
if len(scored.scores) < 2:
    del SECTIONS["Compare models"]
controls.sections("rates:section", SECTIONS)
policy_and_findings(conclusions())   # last, into their places at the top: the charts are drawn meanwhile
