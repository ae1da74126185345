"""Dataset metrics: properties of the labels in the data (base rates, smoothed EDF, consistency), not of a model,
with intervals, the findings in plain words and a policy verdict on the base-rate disparity."""

import math

import streamlit as st

import fairness_core as fc
from fairness_core import plotting
from fairness_dashboard.data import analysis, loading, profiling
from fairness_dashboard.presentation import captions, coverage, escape, formats, labels
from fairness_dashboard.presentation.definitions import definition_link
from fairness_dashboard.results import computations, summaries
from fairness_dashboard.sections import comparison_table
from fairness_dashboard.session import progress, state
from fairness_dashboard.settings import controls, page_frame, review_config

page_frame.draw()
st.title("Dataset metrics")
st.info("These numbers describe the **labels in the data, not a model**: no score or prediction enters them. "
        "A disparity here means the recorded outcome itself differs between subgroups, which a model trained on "
        "these labels can learn and repeat, and which may reflect how the labels were produced.")
token, mapping_key, scored = analysis.current()
include_small = controls.include_small()
intervals = controls.intervals()
level = intervals.ci

# Base-rate disparity: computed first, for the findings at the top --------------------------------
distance, reduction, reference = controls.disparity_controls(scored.subgroups, "dataset")
# The bound's widget is drawn under the base rates below; its current value is read here.
max_difference = controls.setting("dataset:max_difference", summaries.DEFAULTS["dataset:max_difference"])
with progress.computing("base rates", level):
    section = summaries.dataset_section(token, mapping_key, scored, distance=distance, reduction=reduction,
                                        reference=reference, include_small=include_small,
                                        max_difference=max_difference, intervals=intervals)
    parity = section.extra["parity"]
    rates = computations.base_rates(token, mapping_key, scored, level)

captions.write_findings(section.findings, "No comparison of base rates could be assessed: every one is undefined or "
                                          "left out as small.")

# 1. Base rates -------------------------------------------------------------------------------
st.subheader("Base rates (dataset statistical parity)")
perfect = "0" if distance == "diff" else "1"
st.metric(f"Base-rate disparity ({reduction})", formats.tile(parity.value),
          help=f"Perfect value {perfect}. Over {parity.n_used} comparisons; {parity.n_small_excluded} with a small "
               f"subgroup and {parity.n_undefined} undefined left out. " + definition_link("base-rate"))
# The labels' selection rate is their base rate; the shared caption names it as a selection rate.
st.caption(captions.disparity_caption(parity, "selection_rate").replace("selection rate", "base rate"))
ref_text = labels.against(reference)  # article included
st.caption(f"Share of positive labels in each subgroup, compared with {ref_text}; distance: "
           f"{labels.DISTANCE_LABELS[distance]}; overall base rate {formats.num(scored.base_rate, 3)}."
           + (f" Intervals: {formats.level_text(level)}; Wilson intervals for base rates, and for disparities a "
              f"bootstrap of the label counts stratified by subgroup with {intervals.n_boot:,} resamples (seed 0)"
              + (f", {labels.ADJUST_LABELS[intervals.adjust]}-adjusted" if intervals.adjust else "") + "."
              + coverage.note([f"base rate {distance}, {reduction}", "base rate per subgroup",
                               *coverage.comparisons(f"base rate {distance}", intervals.adjust)])
              if level is not None else ""))

if distance == "diff":
    controls.kept(st.number_input, labels.MAX_DIFFERENCE, "dataset:max_difference",
                  summaries.DEFAULTS["dataset:max_difference"], min_value=0.0, max_value=1.0, step=0.01, format="%.3f",
                  help="Policy bound for the difference |a - b| of base rates (in [0, 1]): the largest difference "
                       "must be at most this value.")
for verdict in section.verdicts:
    st.markdown(captions.verdict_markdown(verdict))
st.caption(f"The rule is assessed on the largest base-rate disparity (max) against {ref_text}, whatever the "
           "Reduction above" + ("; ratio distance: the band [0.8, 1.25]" if distance == "ratio" else "") + ". "
           + ("It passes when its whole interval meets the bound, fails when the whole interval breaks it, and is "
              "inconclusive when the interval straddles the bound." if level is not None else
              "Intervals are off, so the verdict rests on the point estimate alone."))

reference_label = labels.reference_legend(reference)
pairwise = labels.reference_mode(reference) == "pairwise"
# Worst first: each subgroup's base-rate disparity against the reference (pairwise: its largest), largest first.
order = controls.disparity_order([parity.table], list(rates["subgroup"]), pairwise=pairwise)
st.plotly_chart(plotting.rate_chart(rates, ["base_rate"], None if pairwise else {"base_rate": parity.table},
                                    reference_label=reference_label, labels={"base_rate": "Base rate"}, level=level,
                                    order=order),
                width="stretch")
st.caption(controls.order_caption(f"the base rate's distance ({labels.DISTANCE_LABELS[distance]}) from {ref_text}"
                                  + (" (the largest over its pairs)" if pairwise else "") + ", largest first"))


# Secondary sections: the user opens one, and only that one is computed and drawn -------------------------
def tables_section() -> None:
    """The base rate of every subgroup and its comparisons with the reference."""
    tab1, tab2 = st.tabs(["Base rates", "Disparities"])
    with tab1:
        st.dataframe(controls.in_order(rates, order), hide_index=True,
                     column_config=formats.column_config(rates.columns))
    with tab2:
        comparison_table.draw(
            parity.table, pairwise=pairwise, order=order, level=level, title="Base rates: every pair of subgroups",
            distance_measure=distance, value_label="base rate", label=f"Base-rate {labels.DISTANCE_LABELS[distance]}")


def edf_section() -> None:
    """The smoothed empirical differential fairness of the labels, its pair and its table."""
    st.subheader("Smoothed empirical differential fairness")
    concentration = controls.kept(st.number_input, "Concentration", "dataset:concentration", 1.0, min_value=0.01,
                                  step=0.5, format="%g",
                                  help="Total pseudo-count of the Dirichlet prior that smooths each subgroup's rates "
                                       "(Foulds et al. 2020); larger values pull small subgroups towards 1/2.")
    try:
        with progress.computing("the smoothed EDF", level):
            edf = computations.smoothed_edf(token, mapping_key, float(concentration), bool(include_small), scored,
                                            level, intervals.n_boot)
    except ValueError as exc:  # overlapping subgroups (identity columns): the EDF compares disjoint ones
        edf = None
        st.info(escape.md(str(exc)))
    if edf is not None:
        e1, e2 = st.columns(2)
        e1.metric("Smoothed EDF (ε)", formats.tile(edf.value),
                  help="The largest |ln s_i(y) - ln s_j(y)| over pairs of subgroups and both outcomes; perfect 0. "
                       + definition_link("smoothed-edf"))
        e1.caption(captions.edf_caption(edf))
        if edf.pair is not None:
            outcome = "positive" if edf.outcome == 1 else "negative"
            # Text, not a tile: two intersection names can be far wider than a tile, and text wraps.
            e2.markdown(f"**Attained by**  \n{escape.md(edf.pair[0])} vs {escape.md(edf.pair[1])}",
                        help=f"The pair whose smoothed rates of a {outcome} label differ most.")
            factor = f"{math.exp(edf.value):.2f}"
            if level is not None and not math.isnan(edf.ci_low):
                factor += f" (interval {math.exp(edf.ci_low):.2f}–{math.exp(edf.ci_high):.2f})"
            st.caption(f"The smoothed rate of a {outcome} label is {factor} "
                       f"times higher for {escape.md(edf.pair[0])} than for {escape.md(edf.pair[1])} (e^ε)."
                       + (" Intervals: a bootstrap of each subgroup's label counts (subgroup sizes fixed) with "
                          f"{intervals.n_boot:,} resamples (seed 0)." + coverage.note(["smoothed EDF"])
                          if level is not None else ""))
        else:
            e2.markdown("**Attained by**  \nn/a", help=escape.md(edf.reason))
            st.caption(escape.md(edf.reason))
        edf_table = controls.in_order(edf.table, order)  # in the base rates' order
        st.dataframe(edf_table, hide_index=True, column_config=formats.column_config(edf.table.columns))


@st.fragment
def consistency_section(token: str, mapping_key: str, scored, level) -> None:
    """Consistency and its options: a change of features, k or sample reruns only this section.

    The nearest-neighbour search is the one slow step of the page, so on more rows than
    ``loading.CONSISTENCY_SAMPLE`` it runs when asked (a button), on a seeded sample of that many rows
    (their neighbours searched among all rows) with its standard error; every row on request.
    """
    st.subheader("Consistency (similar rows, similar labels)")
    if analysis.needs_rows("Consistency (a nearest-neighbour search over the rows)"):
        return
    numeric = profiling.numeric_columns(token, st.session_state[state.FRAME])
    default_features = profiling.feature_columns(token, st.session_state[state.FRAME], scored.mapping)[:8]
    c1, c2, c3 = st.columns([3, 1, 1])
    with c1:
        features = controls.kept(st.multiselect, "Features", f"dataset:features:{token}", default_features,
                                 options=numeric,
                                 help="Numeric columns that describe how similar two rows are; each is standardised "
                                      "(mean 0, standard deviation 1) before the nearest neighbours are found.")
    with c2:
        n_neighbors = controls.kept(st.number_input, "Neighbours (k)", "dataset:n_neighbors", 5,
                                    min_value=fc.CONFIG_BOUNDS["consistency_neighbors"][0],
                                    max_value=fc.CONFIG_BOUNDS["consistency_neighbors"][1], step=1,
                                    help="How many nearest neighbours each row is compared with (itself excluded).")
    small = scored.n_rows <= loading.CONSISTENCY_SAMPLE
    with c3:
        every_row = controls.kept(st.checkbox, "Every row", "dataset:consistency_all", False, disabled=small,
                                  help=f"Count the neighbours of every row instead of a random sample of "
                                       f"{loading.CONSISTENCY_SAMPLE:,} rows (seed 0). On a million rows this takes "
                                       "ten seconds or more rather than about one; the sample's standard error "
                                       "is shown beside its estimate.")
    if not features:
        st.info("Choose one or more numeric feature columns to measure consistency.")
        return
    sample_size = None if small or every_row else loading.CONSISTENCY_SAMPLE
    args = (token, mapping_key, tuple(features), int(n_neighbors), sample_size, scored)
    result = computations.consistency.peek(*args)
    run = review_config.consistency_run(token, mapping_key, features, n_neighbors, sample_size)
    asked = controls.setting(review_config.CONSISTENCY_RUN, None) == run  # computed before, or a restored review's
    if result is None and not small and not asked:
        prompt = st.empty()
        with prompt.container():
            counted = f"{scored.n_rows:,} rows" if sample_size is None else f"a sample of {sample_size:,} rows"
            st.caption(f"Consistency searches the {int(n_neighbors)} nearest neighbours of {counted} among all "
                       f"{scored.n_rows:,}; it runs when you ask.")
            clicked = st.button("Compute consistency", type="primary")
        if not clicked:
            return
        prompt.empty()
    if result is None:
        try:
            counted = f"{scored.n_rows:,}" if sample_size is None else f"{sample_size:,} sampled"
            with progress.stage(f"Finding the {int(n_neighbors)} nearest neighbours of {counted} rows ..."):
                result = computations.consistency(*args)
        except (ValueError, TypeError) as exc:
            st.error(escape.md(str(exc)))
            return
    st.session_state[state.KEEP_PREFIX + review_config.CONSISTENCY_RUN] = run  # the review (Overview, Export) includes it
    k1, k2 = st.columns(2)
    k1.metric("Share of differing neighbours", formats.tile(result.value),
              help="The mean over rows of the share of its k nearest neighbours whose label differs (Oracle AutoMLx's "
                   "consistency); perfect 0. " + definition_link("consistency"))
    k2.metric("Consistency (Zemel et al.)", formats.tile(result.zemel_consistency),
              help="1 minus the share of differing neighbours; perfect 1. " + definition_link("consistency"))
    if result.n_sampled < result.n_rows:
        k1.caption(f"Standard error {formats.num(result.std_error)} (a random sample of {result.n_sampled:,} of "
                   f"{result.n_rows:,} rows, seed 0): the value over every row lies within about "
                   f"±{formats.num(1.96 * result.std_error)} of this estimate (95 %)."
                   + coverage.note(["consistency"]))
    note = f" {result.n_excluded:,} rows with a missing feature value are left out." if result.n_excluded else ""
    st.caption(f"{result.n_rows:,} rows, k = {result.n_neighbors}, features: "
               f"{escape.md(', '.join(result.features))}.{note}"
               + (" No bootstrap interval is computed for consistency." if level is not None else ""))


SECTIONS = {
    "Tables": tables_section,
    "Smoothed EDF": edf_section,
    "Consistency": lambda: consistency_section(token, mapping_key, scored, level),
}
controls.sections("dataset:section", SECTIONS)
