"""Fairness dashboard: entry point. Page config and navigation; each page draws the shared frame.

`streamlit run app.py` finds the ``st.App`` below and serves it: Streamlit imports this file once
as a module when the server starts (``__name__ != "__main__"``), and every session runs it as a
script (``__name__ == "__main__"``), as AppTest does. The App's lifespan hook switches off
Streamlit's older ``pages/``-directory mode before the first request, so a page's URL opened first
after a server start gets the same navigation as every later request (``fairness_dashboard.navigation``).

The shared state and sidebar are set up by ``fairness_dashboard.settings.page_frame.draw()`` at the top of every page
rather than here: AppTest can run a page file directly, and the frame must be there then too.
"""

import streamlit as st

from fairness_dashboard import navigation

# The app's one style sheet. Tabs wrap onto a second line when the page is narrow, instead of scrolling sideways
# behind an arrow: at a 1,024-px window "Correlation" and "Compare models" were out of sight.
CSS = """<style>
[data-testid="stTabs"] [role="tablist"] { flex-wrap: wrap; row-gap: 0.25rem; }
[data-testid="stTabsScrollLeft"], [data-testid="stTabsScrollRight"] { display: none; }
</style>"""

if __name__ == "__main__":  # a script run of a session
    st.set_page_config(page_title="Fairness dashboard", layout="wide")
    st.html(CSS)   # only a style sheet: Streamlit adds it to the page without taking any room
    st.navigation(navigation.pages()).run()
else:  # imported by `streamlit run` (or an ASGI server) at start-up
    app = st.App(__file__, lifespan=navigation.server_lifespan)
