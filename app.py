"""Fairness dashboard: entry point. Page config and navigation; each page draws the shared frame.

The shared state and sidebar are set up by ``ui.controls.frame()`` at the top of every page
rather than here: Streamlit still runs a file in ``pages/`` directly (its older multipage mode)
in AppTest reruns and for a first request to a page's URL, and the frame must be there then too.
"""

import streamlit as st

st.set_page_config(page_title="Fairness dashboard", layout="wide")
st.navigation([
    st.Page("pages/data.py", title="Data", default=True),
    st.Page("pages/overview.py", title="Overview"),
    st.Page("pages/subgroup_aucs.py", title="Subgroup AUCs"),
    st.Page("pages/rate_disparities.py", title="Rate disparities"),
    st.Page("pages/calibration.py", title="Calibration"),
    st.Page("pages/classwise.py", title="Class-wise bias"),
    st.Page("pages/dataset_metrics.py", title="Dataset metrics"),
    st.Page("pages/definitions.py", title="Metric definitions"),
]).run()
