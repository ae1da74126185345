"""Streamlit glue for the dashboard, grouped by concern; each subpackage imports only those listed before it.

- ``session``: the session's state keys, its memo of computed objects, progress indicators.
- ``presentation``: the interface's words, number formats, captions, tiles, definitions and coverage notes.
- ``data``: data in: reading and counting a source, loading and profiling an upload, the analysed rows.
- ``results``: what the pages show, memoized: the statistics and each page's findings and verdicts.
- ``settings``: the settings of a review: the widgets that set them, their saved, shared and restored forms and the
  export, and the frame every page draws first.
- ``sections``: sections several pages draw: model comparison, the comparison table, the threshold, suggested
  thresholds, the trade-off, the release gate.

At the top: ``navigation`` (the pages and the server-start hook), ``launch`` (``fairness-core app``),
``local_paths`` (which files the server may read) and ``streamlit_internals`` (every use of Streamlit's internals).
"""
