"""Subgroup AUCs: subgroup, BPSN and BNSP AUC per subgroup, their power means and the bias AUC score,
with DeLong intervals and the AUCs that lie below the overall AUC."""

from contextlib import nullcontext

import streamlit as st

import fairness_core as fc
from fairness_core import plotting
from ui import controls, data, text

controls.frame()
st.title("Subgroup AUCs")
token, mapping_key, scored = data.current()
score = data.current_score("any scale")

c1, c2, c3 = st.columns(3)
with c1:
    p = controls.kept(st.number_input, text.POWER_P, "auc:p", -5.0, min_value=-50.0, max_value=50.0, step=1.0,
                      help=text.HELP[text.POWER_P])
with c2:
    weight = controls.kept(st.slider, text.OVERALL_WEIGHT, "auc:weight", 0.25, min_value=0.0, max_value=1.0,
                           step=0.05, help=text.HELP[text.OVERALL_WEIGHT])
with c3:
    include_small = controls.include_small("auc")
intervals = controls.intervals()
level = intervals.ci

with st.spinner("Computing intervals ...") if level is not None else nullcontext():
    table = (data.auc_table(token, mapping_key, score, scored) if level is None
             else data.auc_intervals(token, mapping_key, score, level, intervals.n_boot, scored))
    result = fc.summarize_bias_auc(table, p=float(p), overall_weight=float(weight), include_small=include_small)

if level is not None:
    st.subheader("Findings")
    found = fc.auc_findings(table, include_small=include_small)
    if found:
        st.markdown("\n".join(f"- {text.md(s)}" for s in found))
    else:
        st.markdown(f"- No subgroup, BPSN or BNSP AUC has a {text.level_text(level)} interval entirely below the "
                    f"overall AUC ({text.num(result.overall_auc)}): no AUC is distinguishable from it at this "
                    "sample size.")

m = st.columns(5)
m[0].metric("Bias AUC score", text.num(result.value), help="w x overall AUC + (1 - w) x mean of the three power means")
m[1].metric("Overall AUC", text.num(result.overall_auc))
power = f"Power mean over subgroups (p = {p:g}) of the"
m[2].metric("Power mean: subgroup", text.num(result.subgroup_power_mean), help=f"{power} subgroup AUCs")
m[3].metric("Power mean: BPSN", text.num(result.bpsn_power_mean), help=f"{power} BPSN AUCs")
m[4].metric("Power mean: BNSP", text.num(result.bnsp_power_mean), help=f"{power} BNSP AUCs")
if level is not None:
    m[0].caption(text.bias_auc_caption(result, level))
    m[1].caption(text.overall_auc_caption(table, level))
for col, column in zip(m[2:], ("subgroup_auc", "bpsn_auc", "bnsp_auc")):
    col.caption(text.power_mean_caption(result, table, column, include_small, level))
undefined = ", ".join(f"{n} {c.replace('_', ' ').replace('auc', 'AUC')}" for c, n in result.n_undefined.items() if n)
st.caption(
    f"Score column: {text.md(score)}. Power means over {result.n_used} subgroups"
    + (f"; small subgroups left out: {result.n_small_excluded}" if result.n_small_excluded else "")
    + (f"; left out as undefined: {undefined}" if undefined else "") + "."
    + (f" Intervals: {text.level_text(level)}; DeLong's for each AUC." if level is not None else ""))

st.plotly_chart(plotting.auc_chart(table, title=f"AUCs per subgroup, {score}", level=level), width="stretch")
shown = table.copy()
shown.attrs = {}  # the bootstrap replicates in attrs are not for display (and not JSON)
st.dataframe(shown, hide_index=True, column_config=text.column_config(shown.columns))

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
