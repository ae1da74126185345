"""Subgroup AUCs: subgroup, BPSN and BNSP AUC per subgroup, their power means and the bias AUC score,
with DeLong intervals and the AUCs that lie below the overall AUC."""

import streamlit as st

import fairness_core as fc
from fairness_core import plotting
from fairness_dashboard.data import analysis
from fairness_dashboard.presentation import captions, coverage, escape, formats, labels, tiles
from fairness_dashboard.presentation.definitions import definition_link
from fairness_dashboard.results import computations, summaries
from fairness_dashboard.sections import compare
from fairness_dashboard.session import progress
from fairness_dashboard.settings import controls, page_frame

page_frame.draw()
st.title("Subgroup AUCs")
token, mapping_key, scored = analysis.current()
score = analysis.current_score("any scale")

c1, c2 = st.columns(2)
with c1:
    p = controls.kept(st.number_input, labels.POWER_P, "auc:p", summaries.DEFAULTS["auc:p"], min_value=float(fc.CONFIG_BOUNDS["auc_p"][0]),
                      max_value=float(fc.CONFIG_BOUNDS["auc_p"][1]), step=1.0,
                      help=labels.HELP[labels.POWER_P])
with c2:
    weight = controls.kept(st.slider, labels.OVERALL_WEIGHT, "auc:weight", summaries.DEFAULTS["auc:weight"],
                           min_value=0.0, max_value=1.0,
                           step=0.05, help=labels.HELP[labels.OVERALL_WEIGHT])
include_small = controls.include_small()
intervals = controls.intervals()
level = intervals.ci

min_score = controls.setting("auc:min_score", summaries.DEFAULTS["auc:min_score"])
if not controls.setting("auc:min_score_on", summaries.DEFAULTS["auc:min_score_on"]):
    min_score = None
with progress.computing("the AUCs of every subgroup", level):
    section = summaries.auc_section(token, mapping_key, scored, score, p=float(p), weight=float(weight),
                                    include_small=include_small, intervals=intervals, min_score=min_score)
table, result = section.extra["table"], section.extra["result"]

warning = fc.direction_warning(result.overall_auc, scored.mapping.label, scored.mapping.positive_label)
if warning:
    st.warning(escape.md(warning))

# Rendering: the point first (verdicts, findings, the AUC chart and the headline tiles), then the one secondary
# section the user opened ---------------------------------------------------------------------------
st.subheader("Policy")
c1, c2 = st.columns(2)
with c1:
    on = controls.kept(st.checkbox, "Require a minimum bias AUC score", "auc:min_score_on",
                       summaries.DEFAULTS["auc:min_score_on"],
                       help="No standard bound exists for the bias AUC score: set the one your policy requires.")
with c2:
    controls.kept(st.number_input, "Minimum bias AUC score", "auc:min_score", summaries.DEFAULTS["auc:min_score"],
                  min_value=0.0, max_value=1.0,
                  step=0.01, format="%.3f", disabled=not on)
for verdict in section.verdicts:
    st.markdown(captions.verdict_markdown(verdict))
if not section.verdicts:
    st.caption("No rule is set for this page.")

if level is not None:
    captions.write_findings([s for s in section.findings if s != warning])

full_range = controls.kept(st.checkbox, "Full 0–1 range", "auc:full_range", False,
                           help="Draw the AUC axis from 0 to 1 instead of fitting it to the AUCs and their intervals.")
# Worst first: each subgroup's lowest AUC of the three (subgroup, BPSN, BNSP), lowest first.
order = controls.ranked(list(table["subgroup"]), table[list(plotting.AUC_COLUMNS)].min(axis=1, skipna=True),
                        descending=False)


def auc_chart():
    fig = plotting.auc_chart(table, title=f"AUCs per subgroup, {score}", level=level, full_range=full_range,
                             order=order)
    if min_score is not None:
        plotting.add_rule_line(fig, float(min_score), f"minimum bias AUC score {float(min_score):g}", axis="x")
        low, high = fig.layout.xaxis.range  # the drawn range, widened to show the bound
        fig.update_xaxes(range=[min(low, float(min_score) - 0.02), max(high, float(min_score) + 0.02)])
    return fig


# The chart shows the AUCs, not the power means: p and the weight do not redraw it.
chart_key = (token, mapping_key, score, level, intervals.n_boot, min_score, full_range, tuple(order or ()))
st.plotly_chart(computations.chart("auc", chart_key, auc_chart), width="stretch")
st.caption(controls.order_caption("the lowest of its subgroup, BPSN and BNSP AUCs, lowest first (undefined last)"))

m = tiles.row(5)
m[0].metric("Bias AUC score", formats.tile(result.value),
            help="w x overall AUC + (1 - w) x mean of the three power means. " + definition_link("bias-auc-score"))
m[1].metric("Overall AUC", formats.tile(result.overall_auc),
            help="The AUC of all rows analysed, as defined for a subgroup. " + definition_link("subgroup-auc"))
power = f"Power mean over subgroups (p = {p:g}) of the"
m[2].metric("Power mean: subgroup", formats.tile(result.subgroup_power_mean), help=f"{power} subgroup AUCs. " + definition_link("power-mean"))
m[3].metric("Power mean: BPSN", formats.tile(result.bpsn_power_mean), help=f"{power} BPSN AUCs. " + definition_link("power-mean"))
m[4].metric("Power mean: BNSP", formats.tile(result.bnsp_power_mean), help=f"{power} BNSP AUCs. " + definition_link("power-mean"))
if level is not None:
    m[0].caption(captions.bias_auc_caption(result, level))
    m[1].caption(captions.overall_auc_caption(table, level))
for col, column in zip(m[2:], ("subgroup_auc", "bpsn_auc", "bnsp_auc")):
    col.caption(captions.power_mean_caption(result, table, column, include_small, level))
undefined = ", ".join(f"{n} {c.replace('_', ' ').replace('auc', 'AUC')}" for c, n in result.n_undefined.items() if n)
st.caption(
    f"Score column: {escape.md(score)}. Power means over {result.n_used} subgroups"
    + (f"; small subgroups left out: {result.n_small_excluded}" if result.n_small_excluded else "")
    + (f"; left out as undefined: {undefined}" if undefined else "") + "."
    + (f" Intervals: {formats.level_text(level)}; DeLong's for each AUC."
       + coverage.note(["subgroup AUC", "BPSN AUC", "BNSP AUC", "overall AUC", "power mean", "bias AUC score"])
       if level is not None else ""))
bounds = [c for c in table.columns if c.endswith("max_binning_error")]
if bounds and float(table[bounds].max().max()) > 0:   # AUCs from binned score levels (data counted where it lies)
    st.caption(captions.binned_auc_caption(float(table[bounds].max().max())))


# Secondary sections: the user opens one, and only that one is computed and drawn -------------------------
def table_section() -> None:
    """The AUCs of every subgroup with their intervals, worst first."""
    st.subheader("AUCs per subgroup")
    shown = controls.in_order(table, order).copy()
    shown.attrs = {}  # the bootstrap replicates in attrs are not for display (and not JSON)
    st.dataframe(shown, hide_index=True, column_config=formats.column_config(shown.columns))


SECTIONS = {
    "Table": table_section,
    # Every mapped score column's AUCs side by side, and their differences from a baseline (two or more mapped).
    "Compare models": lambda: compare.auc_section(
        token, mapping_key, scored, p=float(p), weight=float(weight), include_small=include_small,
        intervals=intervals, min_score=min_score, order=order),
}
if len(scored.scores) < 2:
    del SECTIONS["Compare models"]
controls.sections("auc:section", SECTIONS)

with st.expander("What these AUCs mean"):
    st.markdown(
        "- **Subgroup AUC**: how well the score separates positives from negatives *within* the subgroup.\n"
        "- **BPSN AUC** (background positive, subgroup negative): subgroup negatives against background "
        "positives. Low values mean the subgroup's negatives get high scores: more false positives for the "
        "subgroup at any threshold.\n"
        "- **BNSP AUC** (background negative, subgroup positive): subgroup positives against background "
        "negatives. Low values mean the subgroup's positives get low scores: more false negatives.\n"
        "- The **bias AUC score** (Jigsaw Unintended Bias competition) blends the overall AUC with the power "
        "means of the three columns; a negative p stresses the worst subgroups.\n\n"
        "Source: Borkan et al. (2019), *Nuanced Metrics for Measuring Unintended Bias with Real Data for Text "
        "Classification*.")
