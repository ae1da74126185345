"""Calibration: reliability diagrams per subgroup with Wilson intervals, ECE / MCE / Brier (bootstrap intervals
for the ECE and Brier), the ECE disparity with its policy verdict (in the units of its distance), and the findings."""

import streamlit as st

import fairness_core as fc
from fairness_core import plotting
from fairness_dashboard.data import analysis
from fairness_dashboard.presentation import captions, coverage, escape, formats, labels
from fairness_dashboard.presentation.definitions import definition_link
from fairness_dashboard.results import computations, summaries
from fairness_dashboard.sections import compare, comparison_table
from fairness_dashboard.session import progress
from fairness_dashboard.settings import controls, page_frame

page_frame.draw()
st.title("Calibration")
token, mapping_key, scored = analysis.current()
score = analysis.current_score("predicted probabilities")

low, high, _ = scored.score_ranges[score]
if low < 0 or high > 1:
    st.warning(f"Calibration needs predicted probabilities in [0, 1], but {escape.md(score)} ranges from {low:g} "
               f"to {high:g}. A risk score on another scale (such as 1-10 deciles) is not a probability, "
               "so its calibration cannot be assessed. Choose a probability column under Model in the sidebar, "
               "or use the Subgroup AUCs and Rate disparities pages for this score.")
    st.stop()

# Controls ----------------------------------------------------------------------------------
c1, c2, c3 = st.columns(3)
with c1:
    n_bins = controls.kept(st.slider, labels.N_BINS, "cal:n_bins", summaries.DEFAULTS["cal:n_bins"],
                           min_value=fc.CONFIG_BOUNDS["cal_n_bins"][0],
                           max_value=fc.CONFIG_BOUNDS["cal_n_bins"][1], help=labels.HELP[labels.N_BINS])
with c2:
    strategy = controls.kept(st.selectbox, labels.STRATEGY, "cal:strategy", summaries.DEFAULTS["cal:strategy"],
                             options=["uniform", "quantile"], help=labels.HELP[labels.STRATEGY])
with c3:
    min_per_group = controls.kept(st.number_input, "Minimum rows per side", "cal:min_per_group",
                                  summaries.DEFAULTS["cal:min_per_group"], min_value=1,
                                  step=1, help="A subgroup (or reference) with fewer rows has no ECE.")
distance, reduction, reference = controls.disparity_controls(scored.subgroups, "cal")
t1, _ = st.columns([1, 2])
with t1:
    # The bound is in the units of the distance: an excess ℓ2 ECE (default 0.1, ExFairness) or a ratio
    # (>= 1, no default). A ratio is never judged against a difference bound.
    if distance == "diff":
        threshold = controls.kept(st.number_input, "Maximum excess ℓ2 ECE", "cal:threshold",
                                  summaries.DEFAULTS["cal:threshold"], min_value=0.0,
                                  max_value=1.0, step=0.01, format="%.3f",
                                  help="Policy bound on the calibration disparity as an excess ℓ2 ECE: the square "
                                       "root of the difference of two debiased squared calibration errors, so 0.1 "
                                       "(ExFairness's default) is a group whose scores are 10 points off where its "
                                       "reference's are right. It passes when its whole interval is at most this "
                                       "value.")
    else:
        threshold = controls.kept(st.number_input, "Maximum ratio of ECEs (optional)", "cal:ratio_threshold",
                                  summaries.DEFAULTS["cal:ratio_threshold"],
                                  min_value=1.0, step=0.05, format="%.3f", placeholder="no bound",
                                  help="Policy bound on the ECE disparity as a ratio larger / smaller ECE (>= 1; 1 "
                                       "is parity). No bound applies by default: the 0.1 calibration rule bounds a "
                                       "difference of ECEs, never a ratio.")
include_small = controls.include_small()
intervals = controls.intervals()
level = intervals.ci

# Computation and rendering: the point first (the verdict, the findings and the reliability diagram), then the one
# secondary section the user opened. The diagram needs the counts and the point ECEs only; it is sent first, and the
# verdict and findings (the bootstrap: the longest part) are written last into their places above it, so that the
# browser draws the diagram while the server computes them.
with progress.stage("Counting calibration per subgroup and bin ..."):
    counts, note = summaries.calibration_counts(token, mapping_key, scored, score, n_bins=int(n_bins),
                                                strategy=strategy)
    if counts is None:
        st.warning(note)
        st.stop()
    reliability = counts.reliability_table(ci=level)
    point_errors = counts.error_table(min_per_group=int(min_per_group))   # the ECEs the diagram is ordered by
policy_box, findings_box = st.container(), st.container()


@st.fragment
def reliability_diagram(reliability, errors, names: list, key: tuple, score: str, level, order) -> None:
    """The reliability diagram and its "Subgroups shown" picker: a new choice reruns only this section.

    `key` identifies the calibration counts and errors shown (the comparison options, which the
    diagram does not show, are not in it).
    """
    # By default show the subgroups calibrated worst (largest debiased squared error), where a reviewer should look.
    default_shown = errors[~errors["small"]].nlargest(6, "squared_ce")["subgroup"].tolist()
    shown = controls.kept(st.multiselect, "Subgroups shown", f"cal:shown:{key[1]}", default_shown, options=names)
    if order is not None:  # drawn (and listed in the legend) worst first
        shown = [n for n in order if n in shown] + [n for n in shown if n not in order]
    st.plotly_chart(computations.chart("reliability", (*key, tuple(shown)), lambda: plotting.reliability_chart(
        reliability, subgroups=shown, colors=plotting.subgroup_colors(names), title=f"Reliability diagram, {score}",
        small=errors, level=level)), width="stretch")


# Worst first: largest debiased squared calibration error (the quantity the verdict judges; the ℓ2 ECE's order).
order = controls.ranked(list(point_errors["subgroup"]), point_errors["squared_ce"], descending=True)
reliability_diagram(reliability, point_errors, list(scored.subgroups.names),
                    (token, mapping_key, score, int(n_bins), strategy, int(min_per_group), include_small, level,
                     intervals.n_boot, intervals.adjust), score, level, order)

with progress.computing("the calibration verdict and findings", level):
    section = summaries.calibration_section(
        token, mapping_key, scored, score, n_bins=int(n_bins), strategy=strategy, min_per_group=int(min_per_group),
        distance=distance, reduction=reduction, reference=reference, include_small=include_small,
        threshold=None if threshold is None else float(threshold), intervals=intervals)
result = section.extra["result"]
errors = result.errors

with policy_box:
    st.subheader("Policy")
    m1, m2 = st.columns([1, 2])
    m1.metric(f"ECE disparity ({reduction})", formats.tile(result.value),
              help=("Excess ℓ2 ECE: the square root of the difference of debiased squared calibration errors "
                    "(Kumar, Liang & Ma 2019), right on average whatever the true miscalibration" if result.debiased else
                    f"{labels.DISTANCE_LABELS[distance].capitalize()} of expected calibration errors (plug-in)")
                   + "; perfect value "
                   f"{'0' if distance == 'diff' else '1'}. Over {result.disparity.n_used} comparisons; "
                   f"{result.disparity.n_small_excluded} with a small subgroup and {result.disparity.n_undefined} "
                   "undefined left out. " + definition_link("calibration-disparity"))
    m1.caption(captions.disparity_caption(result.disparity, None))
    with m2:
        if result.verdict is not None:
            st.markdown(captions.verdict_markdown(result.verdict))
        else:
            st.markdown(":gray-badge[No rule] No policy bound applies to a ratio of ECEs by default (the 0.1 "
                        "calibration rule bounds a difference of ECEs). Enter a maximum ratio above to assess it.")
        st.info(escape.md(result.interpretation))
    ref_text = labels.against(reference)  # article included
    compared = ["excess ℓ2 ECE diff, " + reduction, *coverage.comparisons("excess ℓ2 ECE diff", intervals.adjust)] \
        if result.debiased else []   # the measured rows (fairness_dashboard.presentation.coverage); a ratio has none
    st.caption(f"Each subgroup's {'ℓ2 ECE' if result.debiased else 'ECE'} is compared with {ref_text}; distance: "
               f"{'excess ℓ2 ECE' if result.debiased else labels.DISTANCE_LABELS[distance]}. "
               f"Score column: {escape.md(score)}; {int(n_bins)} {strategy} bins."
               + (f" Intervals: {formats.level_text(level)}; Wilson's for each bin's fraction of positives; for each "
                  "ℓ2 ECE, the high end from a studentized bootstrap and the low end from a test of calibration that "
                  "redraws each bin's labels from its scores, so a calibrated subgroup's interval reaches 0; a "
                  f"bootstrap with {intervals.n_boot:,} resamples (seed 0, stratified by subgroup) for the Brier score "
                  "and the differences of ℓ2 ECEs"
                  + (f" ({labels.ADJUST_LABELS[intervals.adjust]}-adjusted)" if intervals.adjust else "")
                  + ". The plug-in ECE, the MCE and a ratio of ECEs have none: the first two lie above their truth by "
                  "the bins' noise (their intervals covered 0 % and 0-9 % of calibrated groups), a ratio's covered "
                  "0-92 % in the simulation."
                  + coverage.note(["ℓ2 ECE per subgroup", "Brier score per subgroup",
                                   "ℓ2 ECE of the rest", "reliability diagram", *compared])
                  if level is not None else " Intervals are off, so the verdict rests on the point estimate alone."))

with findings_box:
    captions.write_findings(section.findings)


# Secondary sections: the user opens one, and only that one is computed and drawn -------------------------
def errors_section() -> None:
    """The calibration errors (ECE, MCE, Brier) of every subgroup, as a chart and a table."""
    st.subheader("Calibration errors per subgroup")
    reference_label = labels.reference_legend(reference)
    bound_label = None if result.rule is None else f"Policy bound {result.rule.bound:g}"
    st.plotly_chart(plotting.calibration_error_chart(
        errors, None if labels.reference_mode(reference) == "pairwise" else result.table, distance_measure=distance,
        bound=None if result.rule is None else result.rule.bound, bound_label=bound_label,
        reference_label=reference_label, title="Calibration error per subgroup", level=level, order=order),
        width="stretch")
    st.caption(controls.order_caption("largest ℓ2 ECE (debiased squared calibration error) first (undefined last)"))
    st.caption("A group's plug-in ECE is biased upwards when it is small: every bin's gap grows with its noise. The "
               "*ℓ2 ECE* is the square root of the debiased squared calibration error (Kumar, Liang & Ma 2019: each "
               "bin's squared gap less its label noise, unbiased whether the group is calibrated or not; below 0, "
               "shown as 0, when the gaps are no more than chance). The chart, the verdict, the stars and the "
               "findings use it; the plug-in ECE is in the table as ExFairness defines it.")
    st.dataframe(controls.in_order(errors, order), hide_index=True, column_config=formats.column_config(errors.columns))


def comparisons_section() -> None:
    """Each subgroup's ECE against the reference (or every pair)."""
    st.subheader("ECE comparisons")
    comparison_table.draw(
        result.table, pairwise=labels.reference_mode(reference) == "pairwise", order=order, level=level,
        title="ECE disparity: every pair of subgroups", distance_measure=distance, value_label="ECE",
        label=f"ECE {labels.DISTANCE_LABELS[distance]}")


SECTIONS = {
    "Calibration errors": errors_section,
    "ECE comparisons": comparisons_section,
    # Every mapped score column's ECE disparity and verdict side by side, and the ECE differences from a baseline
    # model (two or more mapped).
    "Compare models": lambda: compare.calibration_section(
        token, mapping_key, scored, n_bins=int(n_bins), strategy=strategy, min_per_group=int(min_per_group),
        distance=distance, reduction=reduction, reference=reference, include_small=include_small,
        threshold=None if threshold is None else float(threshold), intervals=intervals, order=order),
}
if len(scored.scores) < 2:
    del SECTIONS["Compare models"]
controls.sections("cal:section", SECTIONS)
