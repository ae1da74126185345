"""Over time: every rate and label rule of the review assessed per day, week, month or quarter of the mapped time
column, with each period's verdict, the first period a rule failed, the trend test and the subgroups' rates."""

import streamlit as st

from fairness_dashboard.sections import over_time
from fairness_dashboard.settings import page_frame

page_frame.draw()
st.title("Over time")
over_time.draw()
