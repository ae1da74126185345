"""Rate disparities: rates per subgroup at a decision threshold, their disparities and equalized odds."""

import numpy as np
import streamlit as st

from fairness_core import plotting
from ui import controls, data, state, text

controls.frame()
st.title("Rate disparities")
token, mapping_key, scored = data.current()
score = st.session_state[state.MODEL]

# Controls ----------------------------------------------------------------------------------
sources = ([f"score:{score}"] if score else []) + (["given"] if scored.predicted is not None else [])
source = controls.kept(
    st.radio, "Predictions from", "rates:source", sources[0], options=sources, horizontal=True,
    format_func=lambda s: text.md(f"{score} >= threshold" if s.startswith("score:")
                                  else f"the predicted label column ({scored.mapping.predicted_label})"))
if source.startswith("score:"):
    values = scored.scores[score]
    lo, hi = float(values.min()), float(values.max())
    integer = bool(np.all(np.mod(values, 1) == 0))
    default = 0.5 if lo >= 0 and hi <= 1 else (float(int((lo + hi) / 2)) if integer else (lo + hi) / 2)
    threshold = controls.kept(st.number_input, text.THRESHOLD, f"rates:threshold:{score}", default,
                              step=1.0 if integer else 0.01, format="%g", help=text.HELP[text.THRESHOLD])
    st.caption(text.md(f"{score} ranges from {lo:g} to {hi:g}; predicted positive = {score} >= {threshold:g}."))
    counts = data.confusion(token, mapping_key, score, float(threshold), scored)
else:
    counts = data.confusion(token, mapping_key, "given", None, scored)

metrics = controls.kept(st.multiselect, "Rates", "rates:metrics", ["false_positive_rate", "false_negative_rate"],
                        options=list(text.RATE_LABELS), format_func=text.RATE_LABELS.get)
distance, reduction, reference = controls.disparity_controls(counts.names, "rates")
include_small = controls.include_small("rates")

# Computation (post-aggregation only: the counts above are cached) -------------------------
rates = counts.table()
kw = dict(distance_measure=distance, reference=reference, reduction=reduction, include_small=include_small)
summaries = {m: counts.disparity(text.RATE_TO_METRIC[m], **kw) for m in metrics}
comparisons = {m: s.table for m, s in summaries.items()}
odds = counts.equalized_odds(**kw)

# Rendering -----------------------------------------------------------------------------------
if not metrics:
    st.info("Choose one or more rates above.")
    st.stop()
perfect = "0" if distance == "diff" else "1"
cols = st.columns(len(metrics) + 1)
for col, m in zip(cols, metrics):
    s = summaries[m]
    col.metric(f"{text.RATE_LABELS[m]} disparity ({reduction})", text.num(s.value),
               help=f"Perfect value {perfect}. Over {s.n_used} comparisons; {s.n_small_excluded} with a small "
                    f"subgroup and {s.n_undefined} undefined left out.")
cols[-1].metric(f"Equalized odds ({reduction})", text.num(odds.value),
                help="Per comparison the larger of the TPR and FPR disparities, then reduced.")
ref_text = text.REFERENCE_LABELS.get(reference, f"subgroup {text.md(reference)}")
st.caption(f"Each subgroup is compared with the {ref_text}; distance: {text.DISTANCE_LABELS[distance]}; "
           f"perfect value {perfect}.")

reference_label = {"rest": "Rest of population", "overall": "Whole population"}.get(reference, f"Reference: {reference}")
fig = plotting.rate_chart(rates, metrics, None if reference == "pairwise" else comparisons,
                          reference_label=reference_label, title="Rates per subgroup")
st.plotly_chart(fig, width="stretch")

st.subheader("Rates per subgroup")
st.dataframe(rates, hide_index=True, column_config=text.column_config(rates.columns))

st.subheader("Disparities")
tabs = st.tabs([text.RATE_LABELS[m] for m in metrics] + ["Equalized odds"])
for tab, m in zip(tabs, metrics):
    with tab:
        st.dataframe(comparisons[m], hide_index=True, column_config=text.column_config(comparisons[m].columns))
with tabs[-1]:
    st.dataframe(odds.table, hide_index=True, column_config=text.column_config(odds.table.columns))
