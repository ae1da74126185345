"""Restoring a saved review on the Data page: a configuration file, a review's JSON export or its HTML report,
read and applied to the loaded data (``fairness_dashboard.settings.review_config.request``)."""

from __future__ import annotations

import json
import re

import streamlit as st

import fairness_core as fc

from ..presentation import escape
from ..session import state
from . import review_config

RESTORED = "review:restored_file"  # file_id of the configuration last uploaded on the Data page
# (ReviewConfig, notice) of a restored configuration whose columns the loaded data lacks: applied by
# apply_waiting as soon as data with those columns is loaded (as a link's settings wait for their file).
WAITING = "review:waiting_for_data"
RESTORE_OPEN = "review:restore_open"  # bool: the Data page's "Restore a saved review" expander is open
MAX_FILE = 100_000_000             # bytes of an uploaded report or review export read at most
_CONFIG_OPEN = b'<script type="application/json" id="review-config">'   # the report's embedded configuration
_CONFIG_CLOSE = b"</script>"
_EXPORT_KEY = re.compile(rb'"configuration"\s*:\s*')   # a review export's context.configuration


def read_config(raw: bytes) -> fc.ReviewConfig:
    """The configuration in an uploaded file: a configuration JSON, a review's JSON export, or an HTML report.

    Only the configuration's own JSON is parsed, and only when it is no longer than a configuration can be
    (``fc.MAX_CONFIG_BYTES``): a report's embedded copy is found by two byte searches, a review export's by its
    ``"configuration"`` key, so a large export or report costs no more than the configuration it holds.

    Raises
    ------
    ValueError
        With a message to show, when the file holds no valid configuration.
    """
    if len(raw) > MAX_FILE:
        raise ValueError(review_config.unreadable(f"the file is larger than {MAX_FILE // 1_000_000} MB"))
    if raw.lstrip()[:1] != b"{":  # an HTML report: its embedded configuration
        # Two bytes.find calls, linear in the file (a lazy regex is quadratic on many opening tags without a close).
        start = raw.find(_CONFIG_OPEN)
        end = raw.find(_CONFIG_CLOSE, start + len(_CONFIG_OPEN)) if start >= 0 else -1
        if end < 0:
            raise ValueError(review_config.unreadable("the file is neither a configuration (JSON) nor a review's HTML report"))
        start = raw.rfind(_CONFIG_OPEN, start, end)   # the opening tag this close belongs to
        raw = raw[start + len(_CONFIG_OPEN):end]
    elif len(raw) > fc.MAX_CONFIG_BYTES:   # too large for a configuration: a review's JSON export, or nothing
        return fc.ReviewConfig.from_dict(_exported_config(raw))
    content = raw.decode("utf-8", errors="replace")
    if len(content) > fc.MAX_CONFIG_BYTES:
        raise ValueError(review_config.unreadable(f"its configuration is larger than a configuration can be "
                                                  f"({fc.MAX_CONFIG_BYTES // 1024:,} KiB at most)"))
    try:
        parsed = json.loads(content)
    except ValueError as exc:
        raise ValueError(review_config.unreadable(f"not JSON ({exc})")) from None
    except RecursionError:
        raise ValueError(review_config.unreadable("its JSON is nested too deeply")) from None
    if isinstance(parsed, dict) and isinstance(parsed.get("context"), dict) and "configuration" in parsed["context"]:
        parsed = parsed["context"]["configuration"]  # a review's JSON export
    return fc.ReviewConfig.from_dict(parsed)


def _exported_config(raw: bytes):
    """The ``context.configuration`` of a review's JSON export larger than a configuration, parsed alone.

    The export writes its context first and the configuration second in it (after the data's source), so the first
    ``"configuration":`` key is the one; its value is read from at most ``fc.MAX_CONFIG_BYTES`` bytes."""
    found = _EXPORT_KEY.search(raw, 0, fc.MAX_CONFIG_BYTES)
    if found is None:
        raise ValueError(review_config.unreadable(
            f"the file is larger than a configuration can be ({fc.MAX_CONFIG_BYTES // 1024:,} KiB) and is not a "
            "review's JSON export or HTML report"))
    window = raw[found.end():found.end() + fc.MAX_CONFIG_BYTES].decode("utf-8", errors="replace")
    try:
        value, _ = json.JSONDecoder().raw_decode(window)
    except ValueError:
        raise ValueError(review_config.unreadable(
            f"the review's configuration is not JSON of at most {fc.MAX_CONFIG_BYTES // 1024:,} KiB")) from None
    except RecursionError:
        raise ValueError(review_config.unreadable("its JSON is nested too deeply")) from None
    return value


def restore_section() -> None:
    """Data page: upload a saved configuration (or a report) to restore its view on the loaded data."""
    box = st.expander("Restore a saved review", key=RESTORE_OPEN, on_change="rerun")
    if not box.open:  # drawn only when open: no second file input on the page until then
        return
    with box:
        st.caption("A configuration saved from the Overview (Export this review), a review's JSON or its HTML "
                   "report, made with this data file: its mapping, slice, thresholds and every option are restored "
                   "on every page.")
        uploaded = st.file_uploader("Saved configuration or report", type=["json", "html", "htm"],
                                    key="review:restore")
        if uploaded is None or uploaded.file_id == st.session_state.get(RESTORED):
            return
        try:
            config = read_config(uploaded.getvalue())
        except ValueError as exc:
            st.error(escape.md(str(exc)))
            return
        st.session_state[RESTORED] = uploaded.file_id
        notes = review_config.unsupported(config)
        notice = ("Not offered here, so the default is used: " + "; ".join(notes) + ".") if notes else ""
        if review_config.missing_columns(config, st.session_state[state.FRAME]):
            # Restored before its data: kept until a file with its columns is loaded (apply_waiting).
            st.session_state[WAITING] = (config, notice)
            st.rerun()
        st.session_state.pop(WAITING, None)
        review_config.request(config, " ".join(([review_config.OTHER_FILE] if review_config.other_file(config) else [])
                                 + ([notice] if notice else [])))


def apply_waiting() -> None:
    """Apply a restored configuration that waits for its data, once the loaded data has its columns (called by
    ``fairness_dashboard.settings.page_frame.draw`` before any widget; a new upload starts a new run, so it is applied on that run)."""
    waiting = st.session_state.get(WAITING)
    frame = st.session_state.get(state.FRAME)
    if waiting is None or frame is None:
        return
    config, notice = waiting
    if review_config.missing_columns(config, frame) is not None:
        return
    del st.session_state[WAITING]
    review_config.apply_config(config)
    st.toast("Restored the review's settings on the data just loaded."
             + (f" {review_config.OTHER_FILE}" if review_config.other_file(config) else "")
             + (f" {notice}" if notice else ""))


def waiting_notice() -> None:
    """Data page: say that a restored configuration waits for its data (which file, which columns it lacks), with
    a button to forget it."""
    waiting = st.session_state.get(WAITING)
    if waiting is None:
        return
    config, _ = waiting
    made = dict(config.view).get(review_config.SOURCE) or {}
    name = made.get("name") if isinstance(made, dict) else None
    which = f"its data file, **{escape.md(name)}**" if isinstance(name, str) else "the data file it was made with"
    frame = st.session_state[state.FRAME]
    missing = review_config.missing_column_names(config, frame) if frame is not None else []
    lacks = (f" The data loaded now lacks its column{'s' if len(missing) != 1 else ''} "
             f"{', '.join(escape.md(c) for c in missing)}." if missing else "")
    with st.container(border=True):
        st.info(f"Waiting for the data: the restored review's settings are kept until {which} is loaded (choose "
                "Upload a file above); they are then applied at once, with no second restore." + lacks)
        if st.button("Forget the restored review", help="Keep the current settings and stop waiting for its data."):
            del st.session_state[WAITING]
            st.rerun()
