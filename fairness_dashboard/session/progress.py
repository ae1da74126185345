"""Progress indicators: every step that may take more than about half a second says what it is doing.

Two kinds, both labelled with the stage they are in:

- :func:`stage` for a step on a page (analysing a mapping, a page's first computation): a
  spinner with the stage's name and the time elapsed, which Streamlit shows only once the step
  has run for half a second, so quick reruns (memoized results) show nothing.
- ``st.status`` for loading an upload (pages/data.py): shown at once, its label naming each
  stage in turn (parsing, checking the columns, analysing the mapping).

Streamlit's own running indicator (top right) shows for any script run longer than half a
second (``client.toolbarMode = "viewer"`` in .streamlit/config.toml; "minimal" hides it).
"""

from __future__ import annotations

import streamlit as st


def stage(label: str):
    """A context manager showing `label` (plain text: escape data in it) with a spinner and the elapsed time
    while its block runs, once the block has taken half a second."""
    return st.spinner(label, show_time=True)


def computing(what: str, level: float | None):
    """:func:`stage` labelled "Computing <what> ..." (and "with intervals" when `level` is set)."""
    return stage(f"Computing {what}" + (" with intervals" if level is not None else "") + " ...")
