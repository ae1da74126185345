"""Calibration: reliability diagrams per subgroup, ECE / MCE / Brier, and the ECE disparity."""

import streamlit as st

from fairness_core import plotting
from ui import controls, data, text

controls.frame()
st.title("Calibration")
token, mapping_key, scored = data.current()
score = data.current_score("predicted probabilities")

values = scored.scores[score]
if values.min() < 0 or values.max() > 1:
    st.warning(f"Calibration needs predicted probabilities in [0, 1], but {text.md(score)} ranges from {values.min():g} "
               f"to {values.max():g}. A risk score on another scale (such as 1-10 deciles) is not a probability, "
               "so its calibration cannot be assessed. Choose a probability column under Model in the sidebar, "
               "or use the Subgroup AUCs and Rate disparities pages for this score.")
    st.stop()

c1, c2, c3, c4 = st.columns(4)
with c1:
    n_bins = controls.kept(st.slider, text.N_BINS, "cal:n_bins", 10, min_value=2, max_value=50,
                           help=text.HELP[text.N_BINS])
with c2:
    strategy = controls.kept(st.selectbox, text.STRATEGY, "cal:strategy", "uniform",
                             options=["uniform", "quantile"], help=text.HELP[text.STRATEGY])
with c3:
    threshold = controls.kept(st.number_input, "Pass threshold (ECE disparity)", "cal:threshold", 0.1,
                              min_value=0.0, step=0.01, format="%.3f",
                              help="The disparity passes when it is at most this value (ExFairness default 0.1).")
with c4:
    min_per_group = controls.kept(st.number_input, "Minimum rows per side", "cal:min_per_group", 5, min_value=1,
                                  step=1, help="A subgroup (or reference) with fewer rows has no ECE.")
distance, reduction, reference = controls.disparity_controls(scored.subgroups.names, "cal")
include_small = controls.include_small("cal")

counts = data.calibration(token, mapping_key, score, int(n_bins), strategy, scored)
result = counts.disparity(threshold=float(threshold), min_per_group=int(min_per_group), distance_measure=distance,
                          reduction=reduction, reference=reference, include_small=include_small)

m1, m2 = st.columns([1, 3])
m1.metric(f"ECE disparity ({reduction})", text.num(result.value),
          help=f"Over {result.disparity.n_used} comparisons; {result.disparity.n_small_excluded} with a small "
               f"subgroup and {result.disparity.n_undefined} undefined left out.")
verdict, color = {True: ("Passes", "green"), False: ("Fails", "red"), None: ("Not assessed", "orange")}[result.passes]
with m1:
    st.badge(f"{verdict} (threshold {float(threshold):g})", color=color)
m2.info(text.md(result.interpretation))

names = scored.subgroups.names
errors = result.errors
# By default show the subgroups calibrated worst (largest ECE), where a reviewer should look first.
default_shown = errors[~errors["small"]].nlargest(6, "ece")["subgroup"].tolist()
shown = controls.kept(st.multiselect, "Subgroups shown", f"cal:shown:{mapping_key}", default_shown, options=names)
fig = plotting.reliability_chart(counts.reliability_table(), subgroups=shown,
                                 colors=plotting.subgroup_colors(names), title=f"Reliability diagram, {score}")
st.plotly_chart(fig, width="stretch")

st.subheader("Calibration errors per subgroup")
st.dataframe(errors, hide_index=True, column_config=text.column_config(errors.columns))
st.subheader("ECE comparisons")
st.dataframe(result.table, hide_index=True, column_config=text.column_config(result.table.columns))
