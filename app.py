"""Fairness dashboard: entry point. Page config, shared state, the model picker, navigation."""

import streamlit as st

from ui import controls, data, state, text

st.set_page_config(page_title="Fairness dashboard", layout="wide")
state.init()
if st.session_state[state.FRAME] is None:
    data.load_sample(data.DEFAULT_SAMPLE)

pages = [
    st.Page("pages/data.py", title="Data", default=True),
    st.Page("pages/subgroup_aucs.py", title="Subgroup AUCs"),
    st.Page("pages/rate_disparities.py", title="Rate disparities"),
    st.Page("pages/calibration.py", title="Calibration"),
]
page = st.navigation(pages)

with st.sidebar:
    st.caption("Dataset")
    st.text(st.session_state[state.DATASET_NAME] or "none")
    mapping = st.session_state[state.MAPPING]
    scores = list(mapping.scores) if mapping is not None else []
    if scores:
        st.session_state[state.MODEL] = controls.kept(
            st.selectbox, text.MODEL, "model", scores[0], options=scores,
            help="The score column analysed on the Subgroup AUCs, Rate disparities and Calibration pages.")
    else:
        st.session_state[state.MODEL] = None

page.run()
