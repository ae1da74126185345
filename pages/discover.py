"""Discover subgroups: the intersections of attribute values the model treats worst, found by a search on half of
the rows and estimated on the other half, with intervals, the findings in plain words and a button that makes a
subgroup found the slice of every page."""

import streamlit as st

from fairness_dashboard.data import analysis
from fairness_dashboard.sections import discover
from fairness_dashboard.session import state
from fairness_dashboard.settings import page_frame

page_frame.draw()
st.title("Discover subgroups")
token, mapping_key, scored = analysis.current()
if analysis.needs_rows("Subgroup discovery"):
    st.stop()
discover.draw(token, mapping_key, scored, st.session_state[state.MODEL])
