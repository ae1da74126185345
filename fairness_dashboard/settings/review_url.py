"""The review's settings in the URL: one parameter, ``review``, holding the configuration's JSON without its
default values, zlib-compressed and base64url-encoded (a few hundred characters), so reload and a shared link
reopen the same view; never the data.

Session flow (``fairness_dashboard.settings.page_frame.draw``, which every page draws first):

- :func:`start`, before any widget: on a session's first run reads the URL's ``review`` parameter:
  a sample's settings are applied at once, an uploaded file's settings wait for that file
  (:func:`_ask_for_file` stops the page with an uploader instead of showing the sample);
- :func:`sync_url`, after the sidebar: writes the current settings into the URL.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import json
import re
import zlib

import streamlit as st

import fairness_core as fc

from ..data import loading
from ..presentation import escape, labels
from ..session import state
from . import review_config

PARAM = "review"                   # the URL parameter
AWAITING = "review:awaiting"       # ReviewConfig from the URL, waiting for its data file
URL_READ = "review:url_read"       # bool: this session has read its URL once
MAX_PARAM = 8_000                  # characters of the URL parameter read at most
MAX_JSON = fc.MAX_CONFIG_BYTES    # bytes of configuration JSON read at most (as from a file)
_SHA256 = re.compile(r"[0-9a-f]{64}")


def encode(config: fc.ReviewConfig) -> str:
    """`config` as a URL parameter: its JSON without default values, zlib-compressed, base64url (no padding)."""
    full = config.to_dict()
    mapping_defaults = {f.name: f.default for f in dataclasses.fields(fc.ColumnMapping)}
    option_defaults = {f.name: f.default for f in dataclasses.fields(fc.ReviewConfig)}
    compact = {"version": full["version"],
               "mapping": {k: v for k, v in full["mapping"].items() if _json(v) != _json(mapping_defaults.get(k))},
               "options": {k: v for k, v in full["options"].items() if _json(v) != _json(option_defaults.get(k))}}
    compact |= {k: full[k] for k in ("slice", "thresholds", "subgroup_thresholds", "view") if full[k]}
    raw = json.dumps(compact, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode("ascii").rstrip("=")


def decode(param: str) -> fc.ReviewConfig:
    """The configuration :func:`encode` wrote.

    Raises
    ------
    ValueError
        When `param` is not such a configuration (the message says why).
    """
    if len(param) > MAX_PARAM:
        raise ValueError(review_config.unreadable(f"the link's settings are longer than {MAX_PARAM:,} characters"))
    try:
        inflate = zlib.decompressobj()
        raw = inflate.decompress(base64.urlsafe_b64decode(param + "=" * (-len(param) % 4)), MAX_JSON)
        if inflate.unconsumed_tail:
            raise ValueError(f"more than {MAX_JSON:,} bytes")
        text_ = raw.decode("utf-8")
    except (binascii.Error, zlib.error, UnicodeDecodeError, ValueError) as exc:
        raise ValueError(review_config.unreadable(f"the link's settings are damaged ({exc})")) from None
    return fc.ReviewConfig.from_json(text_)


def _json(value) -> str:
    return json.dumps(list(value) if isinstance(value, tuple) else value, sort_keys=True, default=str)


def sync_url() -> None:
    """Write the current settings into the URL (the ``review`` parameter), when a valid mapping exists."""
    if st.session_state.get(AWAITING) is not None or st.session_state[state.MAPPING] is None:
        return
    try:
        param = encode(review_config.config_from_session())
    except ValueError:  # the mapping does not fit the rows: the page says so
        return
    if st.query_params.get(PARAM) != param:
        st.query_params[PARAM] = param


def start() -> None:
    """The session hook (``fairness_dashboard.settings.page_frame.draw``, before any widget, after a requested configuration is applied):
    on a session's first run, read the URL's settings; while they wait for their data file, ask for it and stop."""
    if not st.session_state.get(URL_READ):
        st.session_state[URL_READ] = True
        _read_url()
    if st.session_state.get(AWAITING) is not None:
        _ask_for_file(st.session_state[AWAITING])


def _read_url() -> None:
    """A new session opened with settings in its URL: a sample's are applied, an upload's wait for the file."""
    param = st.query_params.get(PARAM)
    if not param:
        return
    try:
        config = decode(param)
    except ValueError as exc:
        st.toast(f"The settings in this link could not be read: {escape.md(exc)}")
        return
    source = dict(config.view).get(review_config.SOURCE) or {}
    sample = source.get("sample") if isinstance(source, dict) else None
    if sample in loading.SAMPLES:
        loading.load_sample(sample)
        if review_config.missing_columns(config, st.session_state[state.FRAME]) is None:
            review_config.apply_config(config)
        return
    st.session_state[AWAITING] = config


def _ask_for_file(config: fc.ReviewConfig) -> None:
    """Stop the page with an uploader for the data file the link's settings were made with."""
    source = dict(config.view).get(review_config.SOURCE) or {}
    source = source if isinstance(source, dict) else {}
    name, sha = source.get("name"), source.get("sha256")
    st.title("Reopen a saved review")
    described = f"**{escape.md(name)}**" if isinstance(name, str) else "its data file"
    st.info(f"This link holds the settings of a review of {described}"
            + (f" (SHA-256 `{sha}`)" if isinstance(sha, str) and _SHA256.fullmatch(sha) else "")
            + ". The data never travels with a link: upload the same file to see the review again. It is read "
              "in this session only.")
    uploaded = st.file_uploader(labels.UPLOAD, type=["csv", "tsv", "txt", "parquet"], key="review:data_file",
                                help=labels.HELP[labels.UPLOAD])
    if uploaded is not None:
        with st.status(f"Loading {escape.md(uploaded.name)} ...") as status:
            try:
                loading.load_upload(uploaded, lambda label: status.update(label=escape.md(label)))
                problem = review_config.missing_columns(config, st.session_state[state.FRAME])
            except ValueError as exc:
                problem = escape.md(exc)
            status.update(label=f"Loaded {escape.md(uploaded.name)}" if problem is None
                          else f"Could not use {escape.md(uploaded.name)}", state="complete" if problem is None else "error")
        if problem is None:
            st.session_state[state.UPLOAD_ID] = uploaded.file_id
            st.session_state[state.DATASET_BYTES] = uploaded.size
            st.session_state[state.REPLACING] = False
            del st.session_state[AWAITING]
            review_config.request(config, review_config.OTHER_FILE if review_config.other_file(config) else "")
        st.error(problem)
    if st.button("Continue without it", help="Forget the link's settings and open the sample data."):
        del st.session_state[AWAITING]
        st.query_params.pop(PARAM, None)
        st.rerun()
    st.stop()
