"""Every session_state key the app uses, with its default, in one place.

Data objects live under plain keys (a widget's own state is dropped when its page is left).
Widget values that must survive page switches are mirrored under ``keep:<name>`` keys by
:func:`fairness_dashboard.settings.controls.kept`.
"""

from __future__ import annotations

import streamlit as st

DATASET_NAME = "dataset_name"      # str: sample title or uploaded file name
DATASET_TOKEN = "dataset_token"    # str: identifies the content (sample id or SHA-256 of the bytes)
UPLOAD_ID = "upload_id"            # str: file_id of the upload last loaded (read once per upload, not per rerun)
DATASET_BYTES = "dataset_bytes"    # int: size of the uploaded file in bytes (samples: read from their file)
REPLACING = "replacing_upload"     # bool: the Data page shows the uploader again to replace a loaded file
FAILED_UPLOAD = "failed_upload"    # (file_id, name, message) of an upload that could not be loaded (data cleared), or None
FRAME = "frame"                    # pandas DataFrame as read
MAPPING = "mapping"                # fairness_core.ColumnMapping that validated, or None
MODEL = "model"                    # the score column analysed on every page
SLICE = "slice"                    # fairness_core.Slice: the rows every page analyses (sidebar)
SUBGROUP_OPTIONS = "subgroup_options"  # dict(intersect, n_bins, min_size) from the sidebar
INTERVALS = "intervals"            # fairness_dashboard.settings.controls.IntervalOptions from the sidebar (show, level, n_boot, adjust)
LOCAL_SOURCE = "local_source"      # fairness_dashboard.data.local.LocalSource of "Data on this machine", or None (an upload or a sample)
LOCAL_ROWS = "local_rows"          # "counts": every row, counted where it lies; "sample": a random sample in memory
LOCAL_AUC = "local_auc"            # "bins" or "exact": the score levels of the AUC counts (fairness_dashboard.data.local.AUC_LEVELS)
NOT_COMPUTED = "not_computed"      # what counted data's tables cannot give (ScoredCounts.not_computed), or None
CHARTS_LOADED = "charts_loaded"    # bool: a chart was drawn in this session, so the browser has the chart library
BASE_RATES_OPEN = "data:base_rates_open"   # the Data page's base-rate chart expander (its own widget state)
RULE_SUBGROUPS_OPEN = "overview:rule_subgroups_open"   # + ":<model>": the Overview's "Each rule per subgroup" expander
KEEP_PREFIX = "keep:"

DEFAULTS = {
    DATASET_NAME: None,
    DATASET_TOKEN: None,
    UPLOAD_ID: None,
    DATASET_BYTES: None,
    REPLACING: False,
    FAILED_UPLOAD: None,
    FRAME: None,
    MAPPING: None,
    MODEL: None,
    SLICE: None,
    SUBGROUP_OPTIONS: None,
    INTERVALS: None,
    LOCAL_SOURCE: None,
    LOCAL_ROWS: "counts",
    LOCAL_AUC: "bins",
    NOT_COMPUTED: None,
    CHARTS_LOADED: False,
}


def init() -> None:
    """Set every key to its default if absent (called at the top of every page by fairness_dashboard.settings.page_frame.draw)."""
    for key, value in DEFAULTS.items():
        st.session_state.setdefault(key, value)
