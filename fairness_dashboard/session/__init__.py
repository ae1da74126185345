"""The Streamlit session: its state keys (``state``), its memo of computed objects (``memo``), progress indicators
(``progress``)."""
