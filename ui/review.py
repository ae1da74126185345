"""A record of the review: the session's settings as one ``fairness_core.ReviewConfig`` and back, its
exports (HTML report, review JSON, every table as CSV, the configuration), and the settings in the URL.

The configuration is what :func:`fairness_core.build_review` needs (mapping, slice, per-score
thresholds, every option a number depends on) plus ``view``: every other kept widget value (the
sidebar's model and subgroup order, chart ranges, page choices), and ``source``, the data it was
made with (file name and SHA-256, or the sample). :func:`config_from_session` reads it from the
widgets' kept values (:func:`ui.controls.setting`, with the pages' defaults), so a review built from
it has the numbers the pages show; :func:`apply_config` writes it back into those kept values, so
every page shows the same view.

Session flow (hooked into ``ui.controls.frame``, which every page draws first):

- :func:`start`, before any widget: applies a configuration requested in the previous run
  (a restore, :func:`request`); on a session's first run reads the URL's ``review`` parameter:
  a sample's settings are applied at once, an uploaded file's settings wait for that file
  (:func:`_ask_for_file` stops the page with an uploader instead of showing the sample);
- :func:`sync_url`, after the sidebar: writes the current settings into the URL (never the data).

The URL holds one parameter, ``review``: the configuration's JSON without its default values,
zlib-compressed and base64url-encoded (a few hundred characters), so reload and a shared link
reopen the same view.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import io
import json
import re
import zipfile
import zlib

import streamlit as st

import fairness_core as fc

from . import controls, data, progress, state, text
from .memo import memo
from .summaries import DEFAULTS, classwise_reduction

PARAM = "review"                   # the URL parameter
PENDING = "review:pending"         # ReviewConfig to apply at the start of the next run (before any widget)
AWAITING = "review:awaiting"       # ReviewConfig from the URL, waiting for its data file
URL_READ = "review:url_read"       # bool: this session has read its URL once
RESTORED = "review:restored_file"  # file_id of the configuration last uploaded on the Data page
RESTORE_OPEN = "review:restore_open"  # bool: the Data page's "Restore a saved review" expander is open
NOTICE = "review:notice"           # text (Markdown-safe) to show in a toast on the next run
SOURCE = "source"                  # the view entry naming the data: {"name", "sha256"} or {"sample", "name"}
MAX_PARAM = 8_000                  # characters of the URL parameter read at most
MAX_JSON = 200_000                 # bytes of configuration JSON read at most (from the URL or a file)
MAX_FILE = 100_000_000             # bytes of an uploaded configuration or report read at most
# Kept values that ReviewConfig holds in its own fields (the rest goes to its `view`); see config_from_session.
PAGE_OPTIONS = ("distance", "reduction", "reference", "reference_group")
# The kept record of the consistency the Dataset metrics page last computed (its rows, features, k and sample; see
# consistency_run): a review has consistency when it matches the page's current rows and options.
CONSISTENCY_RUN = "dataset:consistency_run"
_SHA256 = re.compile(r"[0-9a-f]{64}")
_CONFIG_OPEN = '<script type="application/json" id="review-config">'   # the report's embedded configuration
_CONFIG_CLOSE = "</script>"


# The configuration of the session ----------------------------------------------------------------

def config_from_session() -> fc.ReviewConfig:
    """The review configuration of the current session: what every page shows, as one object.

    The mapping and slice of the session, each mapped score's threshold, every option a number
    depends on (read as the pages read them: :func:`ui.controls.setting` with the pages' defaults,
    ``disparity_settings`` for references) and, in ``view``, every other kept widget value and the
    data's name and SHA-256.

    Returns
    -------
    fairness_core.ReviewConfig

    Raises
    ------
    ValueError
        When no valid mapping exists yet, or the mapping does not fit the rows (the message says why).
    """
    mapping = st.session_state[state.MAPPING]
    if mapping is None or st.session_state[state.FRAME] is None:
        raise ValueError("No data is mapped yet.")
    mapping_key, scored = data.analyse(mapping)
    setting = controls.setting
    thresholds = tuple((score, float(setting(f"threshold:{score}", data.default_threshold(scored, score))))
                       for score in mapping.scores)
    show = bool(setting("intervals:show", True))
    metrics = [m for m in setting("rates:metrics", DEFAULTS["rates:metrics"]) if m in text.RATE_LABELS]
    min_score_on = bool(setting("auc:min_score_on", DEFAULTS["auc:min_score_on"]))
    rates, cal, dataset = (controls.disparity_settings(scored.subgroups, page) for page in ("rates", "cal", "dataset"))
    bound_name = "cal:threshold" if cal[0] == "diff" else "cal:ratio_threshold"
    bound = setting(bound_name, DEFAULTS[bound_name])
    covered = {"intervals:show", "intervals:n_boot", "intervals:adjust", "subgroups:include_small", "auc:p",
               "auc:weight", "auc:min_score_on", "rates:metrics", "rates:max_difference", "cal:n_bins",
               "cal:strategy", "cal:min_per_group", bound_name, "dataset:max_difference", "dataset:concentration",
               "subgroups:intersect", "subgroups:n_bins", "subgroups:min_size",
               *(f"threshold:{score}" for score in mapping.scores),
               *(f"{page}:{option}" for page in ("rates", "cal", "dataset") for option in PAGE_OPTIONS)}
    covered |= {"intervals:level"} if show else set()
    covered |= {"auc:min_score"} if min_score_on else set()
    token = st.session_state[state.DATASET_TOKEN]
    classwise, covered_classwise = _classwise_options(scored)
    consistency, covered_consistency = _consistency_options(token, mapping_key, scored)
    subgroup_thresholds = _subgroup_thresholds(token, scored)
    covered |= covered_classwise | covered_consistency | {f"subgroup_thresholds:{token}:{s}" for s in mapping.scores}
    return fc.ReviewConfig(
        mapping=mapping, slice=st.session_state[state.SLICE] or fc.Slice(), thresholds=thresholds,
        include_small=controls.include_small(), ci=float(setting("intervals:level", 0.95)) if show else None,
        n_boot=int(setting("intervals:n_boot", 1000)),
        adjust=text.ADJUSTMENTS.get(setting("intervals:adjust", "none")),
        auc_p=float(setting("auc:p", DEFAULTS["auc:p"])), auc_weight=float(setting("auc:weight", DEFAULTS["auc:weight"])),
        auc_min_score=float(setting("auc:min_score", DEFAULTS["auc:min_score"])) if min_score_on else None,
        rate_metrics=tuple(metrics or DEFAULTS["rates:metrics"]), rate_distance=rates[0], rate_reduction=rates[1],
        rate_reference=rates[2],
        rate_max_difference=float(setting("rates:max_difference", DEFAULTS["rates:max_difference"])),
        cal_n_bins=int(setting("cal:n_bins", DEFAULTS["cal:n_bins"])),
        cal_strategy=setting("cal:strategy", DEFAULTS["cal:strategy"]),
        cal_min_per_group=int(setting("cal:min_per_group", DEFAULTS["cal:min_per_group"])),
        cal_distance=cal[0], cal_reduction=cal[1], cal_reference=cal[2],
        cal_bound=None if bound is None else float(bound),
        dataset_distance=dataset[0], dataset_reduction=dataset[1], dataset_reference=dataset[2],
        dataset_max_difference=float(setting("dataset:max_difference", DEFAULTS["dataset:max_difference"])),
        dataset_concentration=float(setting("dataset:concentration", 1.0)),
        subgroup_thresholds=subgroup_thresholds, baseline=_baseline(mapping), **classwise, **consistency,
        view=((SOURCE, _source_entry()), *_view(covered, mapping_key)))


def _baseline(mapping: fc.ColumnMapping):
    """The comparison's baseline model when models are compared (two or more scores), else None.

    The picker's own setting also stays in ``view``, so a restore puts the picker back as it was."""
    if not controls.setting("compare:on", False) or len(mapping.scores) < 2:
        return None
    baseline = controls.setting("compare:baseline", None)
    return baseline if baseline in mapping.scores else None


def _classwise_options(scored: fc.ScoredData) -> tuple[dict, set]:
    """The Class-wise bias page's metric, reduction and pair of subgroups as ReviewConfig fields, and the kept
    names they hold (the pair and the kind of difference only when the page reduces by a difference)."""
    setting = controls.setting
    reduction = setting("classwise:reduction", DEFAULTS["classwise:reduction"])
    options = {"classwise_metric": setting("classwise:metric", DEFAULTS["classwise:metric"])}
    covered = {"classwise:metric", "classwise:reduction"}
    if reduction == "difference":
        names, pair = list(scored.subgroups.names), controls.two_largest(scored.subgroups)
        chosen = [setting(f"classwise:{k}", default) for k, default in zip(("first", "second"), pair)]
        options["classwise_subgroups"] = tuple(c if c in names else d for c, d in zip(chosen, pair))
        reduction = classwise_reduction(reduction, setting("classwise:difference", DEFAULTS["classwise:difference"]))
        covered |= {"classwise:difference", "classwise:first", "classwise:second"}
    return options | {"classwise_reduction": reduction}, covered


def consistency_run(token: str, mapping_key: str, features, n_neighbors: int, sample_size: int | None) -> dict:
    """The record of a consistency computation as the Dataset metrics page runs it (kept under CONSISTENCY_RUN):
    the dataset and rows (`token`, `mapping_key`: another file or slice is not the one asked for), the features,
    k and the sample size (None: every row)."""
    return {"rows": f"{token}|{mapping_key}", "features": [str(f) for f in features], "n_neighbors": int(n_neighbors),
            "sample_size": sample_size}


def _consistency_options(token: str, mapping_key: str, scored: fc.ScoredData) -> tuple[dict, set]:
    """ReviewConfig's consistency fields when the Dataset metrics page has computed consistency with its current
    options (its kept CONSISTENCY_RUN matches them; the review then shows it too), else none; and the kept names
    they hold."""
    setting, frame = controls.setting, st.session_state[state.FRAME]
    if setting(CONSISTENCY_RUN, None) is None:  # never computed in this session
        return {}, {CONSISTENCY_RUN}
    features = setting(f"dataset:features:{token}", data.feature_columns(token, frame, scored.mapping)[:8])
    n_neighbors = setting("dataset:n_neighbors", 5)
    every_row = bool(setting("dataset:consistency_all", False))
    small = scored.n_rows <= data.CONSISTENCY_SAMPLE
    run = consistency_run(token, mapping_key, features, n_neighbors,
                          None if small or every_row else data.CONSISTENCY_SAMPLE)
    if not features or setting(CONSISTENCY_RUN, None) != run:
        return {}, {CONSISTENCY_RUN}
    return ({"consistency_features": tuple(run["features"]), "consistency_neighbors": run["n_neighbors"],
             "consistency_sample": None if every_row else data.CONSISTENCY_SAMPLE},
            {CONSISTENCY_RUN, f"dataset:features:{token}", "dataset:n_neighbors", "dataset:consistency_all"})


def _subgroup_thresholds(token: str, scored: fc.ScoredData) -> tuple:
    """The per-subgroup thresholds set on the Rate disparities page, per score, while its "Per-subgroup thresholds"
    toggle is on (disjoint subgroups only): ((score, ((subgroup, threshold), ...)), ...)."""
    if not controls.setting("rates:per_subgroup", False) or scored.subgroups.codes is None:
        return ()
    names = set(scored.subgroups.names)
    out = []
    for score in scored.mapping.scores:
        stored = st.session_state.get(f"{state.KEEP_PREFIX}subgroup_thresholds:{token}:{score}") or {}
        chosen = tuple((n, float(t)) for n, t in stored.items() if n in names)
        if chosen:
            out.append((score, chosen))
    return tuple(out)


def _source_entry() -> dict:
    """The data the review was made with: a sample's key and title, or an upload's file name and SHA-256."""
    token, name = st.session_state[state.DATASET_TOKEN], st.session_state[state.DATASET_NAME]
    if token.startswith("sample:"):
        return {"sample": token.removeprefix("sample:"), "name": name}
    return {"name": name, "sha256": token.removeprefix("upload:")}


def _view(covered: set, mapping_key: str) -> list:
    """Every kept widget value that ReviewConfig's fields do not hold: (name, JSON value) pairs, in name order.

    The Data page's own choices (source, mapping, slice) are restored from the mapping and slice instead.
    A name holding the current dataset's token or mapping key is written with ``{data}`` / ``{mapping}``
    in its place; a name holding another dataset's or mapping's (an earlier file) is left out.
    """
    token = st.session_state[state.DATASET_TOKEN]
    out = []
    for key in sorted(k for k in st.session_state if isinstance(k, str) and k.startswith(state.KEEP_PREFIX)):
        name = key[len(state.KEEP_PREFIX):]
        if name in covered or name.startswith(("map:", "slice:", "data:")):
            continue
        general = name.replace(mapping_key, "{mapping}").replace(token, "{data}")
        if any(mark in general for mark in ("upload:", "sample:", "ColumnMapping(")):
            continue
        value = controls.setting(name, None)
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError):
            continue
        out.append((general, value))
    return out


def apply_config(config: fc.ReviewConfig) -> None:
    """Restore `config` into the session: mapping, slice, thresholds, every option and the view.

    Writes the kept value of every widget concerned (and drops the widget's own state, so it is
    drawn with the kept value), so every page shows the configuration's view. Call it before any
    widget of the run is drawn (:func:`start` does, for :func:`request`). The current dataset must
    have the configuration's columns (:func:`missing_columns`).
    """
    token = st.session_state[state.DATASET_TOKEN]
    mapping = config.mapping
    _put("data:source", token.removeprefix("sample:") if token.startswith("sample:") else "upload")
    key = f"map:{token}:"
    for name, value in (("label", mapping.label), (f"positive:{mapping.label}", mapping.positive_label),
                        (f"all_classes:{mapping.label}", bool(mapping.all_classes)), ("scores", list(mapping.scores)),
                        ("predicted", mapping.predicted_label),
                        ("protected", list(mapping.protected)), ("identities", list(mapping.indicators))):
        _put(key + name, value)
    options = {"intersect": bool(mapping.intersect), "n_bins": int(mapping.n_bins), "min_size": int(mapping.min_size)}
    for name, value in options.items():
        _put(f"subgroups:{name}", value)
    st.session_state[state.SUBGROUP_OPTIONS] = options
    st.session_state[state.MAPPING] = mapping
    _put(f"slice:{token}:columns", [c.column for c in config.slice.conditions])
    for c in config.slice.conditions:
        if c.values:
            _put(f"slice:{token}:{c.column}:values", list(c.values))
        else:
            _put(f"slice:{token}:{c.column}:range", (float(c.low), float(c.high)))
    st.session_state[state.SLICE] = config.slice
    try:
        mapping_key, scored = data.analyse(mapping)
    except ValueError:  # the Data page says what does not fit
        mapping_key = scored = None
    for name, value in config.view:
        if name == SOURCE or (mapping_key is None and "{mapping}" in name):
            continue
        _put(name.replace("{data}", token).replace("{mapping}", mapping_key or ""), value)
    for score, threshold in config.thresholds:
        _put(f"threshold:{score}", float(threshold))
    _put("subgroups:include_small", bool(config.include_small))
    _put("intervals:show", config.ci is not None)
    if config.ci is not None:
        _put("intervals:level", float(config.ci))
    _put("intervals:n_boot", int(config.n_boot))
    _put("intervals:adjust", config.adjust or "none")
    _put("auc:p", float(config.auc_p))
    _put("auc:weight", float(config.auc_weight))
    _put("auc:min_score_on", config.auc_min_score is not None)
    if config.auc_min_score is not None:
        _put("auc:min_score", float(config.auc_min_score))
    _put("rates:metrics", list(config.rate_metrics))
    _put("rates:max_difference", float(config.rate_max_difference))
    _put("cal:n_bins", int(config.cal_n_bins))
    _put("cal:strategy", config.cal_strategy)
    _put("cal:min_per_group", int(config.cal_min_per_group))
    _put("cal:threshold" if config.cal_distance == "diff" else "cal:ratio_threshold",
         None if config.cal_bound is None and config.cal_distance != "diff"
         else float(DEFAULTS["cal:threshold"] if config.cal_bound is None else config.cal_bound))
    _put("dataset:max_difference", float(config.dataset_max_difference))
    _put("dataset:concentration", float(config.dataset_concentration))
    for page, (distance, reduction, reference) in (
            ("rates", (config.rate_distance, config.rate_reduction, config.rate_reference)),
            ("cal", (config.cal_distance, config.cal_reduction, config.cal_reference)),
            ("dataset", (config.dataset_distance, config.dataset_reduction, config.dataset_reference))):
        _put(f"{page}:distance", distance)
        _put(f"{page}:reduction", reduction)
        named = text.reference_mode(reference) == "named"
        _put(f"{page}:reference", "named" if named else reference)
        if named:
            _put(f"{page}:reference_group", reference)
    _put("classwise:metric", config.classwise_metric)
    _put("classwise:reduction", "std" if config.classwise_reduction == "std" else "difference")
    if config.classwise_reduction != "std":
        _put("classwise:difference", "absolute" if config.classwise_reduction == "absolute_difference" else "signed")
        for name, value in zip(("first", "second"), config.classwise_subgroups):
            _put(f"classwise:{name}", value)
    own = dict(config.subgroup_thresholds)
    for score in mapping.scores:  # a plain dict the page edits in place (ui.threshold)
        st.session_state[f"{state.KEEP_PREFIX}subgroup_thresholds:{token}:{score}"] = dict(own.get(score, ()))
    st.session_state.pop(state.KEEP_PREFIX + CONSISTENCY_RUN, None)
    if config.consistency_features and scored is not None:
        every_row = config.consistency_sample is None
        _put(f"dataset:features:{token}", list(config.consistency_features))
        _put("dataset:n_neighbors", int(config.consistency_neighbors))
        _put("dataset:consistency_all", every_row)
        small = scored.n_rows <= data.CONSISTENCY_SAMPLE
        _put(CONSISTENCY_RUN, consistency_run(token, mapping_key, config.consistency_features,
                                              config.consistency_neighbors,
                                              None if small or every_row else data.CONSISTENCY_SAMPLE))


def _put(name: str, value) -> None:
    """Set the kept value of widget `name` and drop its own state, so it is drawn with that value."""
    st.session_state[state.KEEP_PREFIX + name] = value
    st.session_state.pop("w:" + name, None)


def unsupported(config: fc.ReviewConfig) -> list:
    """Sentences on options of `config` the app's widgets do not offer (they fall back to a default)."""
    notes = []
    if config.ci is not None and config.ci not in text.LEVELS:
        notes.append(f"confidence level {config.ci:g} (the app offers {', '.join(map(text.level_text, text.LEVELS))})")
    if config.n_boot not in text.N_BOOTS:
        notes.append(f"{config.n_boot:,} resamples (the app offers {', '.join(f'{n:,}' for n in text.N_BOOTS)})")
    if config.consistency_features and config.consistency_sample not in (None, data.CONSISTENCY_SAMPLE):
        notes.append(f"consistency on {config.consistency_sample:,} sampled rows (the app counts a sample of "
                     f"{data.CONSISTENCY_SAMPLE:,} rows or every row)")
    return notes


def missing_columns(config: fc.ReviewConfig, frame) -> str | None:
    """Why `config` cannot be applied to `frame` (Markdown-safe), or None when it has every column it uses."""
    m = config.mapping
    used = [m.label, *m.scores, *([m.predicted_label] if m.predicted_label else []), *m.protected, *m.indicators,
            *(c.column for c in config.slice.conditions)]
    missing = [c for c in dict.fromkeys(used) if c not in frame.columns]
    if not missing:
        return None
    made = dict(config.view).get(SOURCE) or {}
    name = f" ({text.md(made['name'])})" if isinstance(made.get("name"), str) else ""
    return (f"The saved review uses columns this data does not have: {', '.join(text.md(c) for c in missing)}. "
            f"Load the data file the review was made with{name}, then restore the review again.")


def request(config: fc.ReviewConfig, notice: str = "") -> None:
    """Apply `config` at the start of a new run (widgets already drawn in this run cannot change)."""
    st.session_state[PENDING] = config
    st.session_state[NOTICE] = notice
    st.rerun()


# The URL -------------------------------------------------------------------------------------------

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
        raise ValueError(_message(f"the link's settings are longer than {MAX_PARAM:,} characters"))
    try:
        inflate = zlib.decompressobj()
        raw = inflate.decompress(base64.urlsafe_b64decode(param + "=" * (-len(param) % 4)), MAX_JSON)
        if inflate.unconsumed_tail:
            raise ValueError(f"more than {MAX_JSON:,} bytes")
        text_ = raw.decode("utf-8")
    except (binascii.Error, zlib.error, UnicodeDecodeError, ValueError) as exc:
        raise ValueError(_message(f"the link's settings are damaged ({exc})")) from None
    return fc.ReviewConfig.from_json(text_)


def _message(problem: str) -> str:
    return (f"The saved settings cannot be read: {problem}. Tip: save them again from the app (Overview, Export "
            "this review).")


def _json(value) -> str:
    return json.dumps(list(value) if isinstance(value, tuple) else value, sort_keys=True, default=str)


def sync_url() -> None:
    """Write the current settings into the URL (the ``review`` parameter), when a valid mapping exists."""
    if st.session_state.get(AWAITING) is not None or st.session_state[state.MAPPING] is None:
        return
    try:
        param = encode(config_from_session())
    except ValueError:  # the mapping does not fit the rows: the page says so
        return
    if st.query_params.get(PARAM) != param:
        st.query_params[PARAM] = param


def start() -> None:
    """The session hook (``ui.controls.frame``, before any widget): apply a requested configuration; on a
    session's first run, read the URL's settings; while they wait for their data file, ask for it and stop."""
    pending = st.session_state.pop(PENDING, None)
    if pending is not None:
        apply_config(pending)
        notice = st.session_state.pop(NOTICE, "")
        st.toast("Restored the review's settings." + (f" {notice}" if notice else ""))
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
        st.toast(f"The settings in this link could not be read: {text.md(exc)}")
        return
    source = dict(config.view).get(SOURCE) or {}
    sample = source.get("sample") if isinstance(source, dict) else None
    if sample in data.SAMPLES:
        data.load_sample(sample)
        if missing_columns(config, st.session_state[state.FRAME]) is None:
            apply_config(config)
        return
    st.session_state[AWAITING] = config


OTHER_FILE = "This file is not the one the review was made with (its SHA-256 differs), so the numbers may differ."


def _other_file(config: fc.ReviewConfig) -> bool:
    """Whether the loaded data is an upload other than the one `config` names by SHA-256 (False when it names none)."""
    source = dict(config.view).get(SOURCE)
    sha = source.get("sha256") if isinstance(source, dict) else None
    return isinstance(sha, str) and st.session_state[state.DATASET_TOKEN] != "upload:" + sha


def _ask_for_file(config: fc.ReviewConfig) -> None:
    """Stop the page with an uploader for the data file the link's settings were made with."""
    source = dict(config.view).get(SOURCE) or {}
    source = source if isinstance(source, dict) else {}
    name, sha = source.get("name"), source.get("sha256")
    st.title("Reopen a saved review")
    described = f"**{text.md(name)}**" if isinstance(name, str) else "its data file"
    st.info(f"This link holds the settings of a review of {described}"
            + (f" (SHA-256 `{sha}`)" if isinstance(sha, str) and _SHA256.fullmatch(sha) else "")
            + ". The data never travels with a link: upload the same file to see the review again. It is read "
              "in this session only.")
    uploaded = st.file_uploader(text.UPLOAD, type=["csv", "tsv", "txt", "parquet"], key="review:data_file",
                                help=text.HELP[text.UPLOAD])
    if uploaded is not None:
        with st.status(f"Loading {text.md(uploaded.name)} ...") as status:
            try:
                data.load_upload(uploaded, lambda label: status.update(label=text.md(label)))
                problem = missing_columns(config, st.session_state[state.FRAME])
            except ValueError as exc:
                problem = text.md(exc)
            status.update(label=f"Loaded {text.md(uploaded.name)}" if problem is None
                          else f"Could not use {text.md(uploaded.name)}", state="complete" if problem is None else "error")
        if problem is None:
            st.session_state[state.UPLOAD_ID] = uploaded.file_id
            st.session_state[state.DATASET_BYTES] = uploaded.size
            st.session_state[state.REPLACING] = False
            del st.session_state[AWAITING]
            request(config, OTHER_FILE if _other_file(config) else "")
        st.error(problem)
    if st.button("Continue without it", help="Forget the link's settings and open the sample data."):
        del st.session_state[AWAITING]
        st.query_params.pop(PARAM, None)
        st.rerun()
    st.stop()


# Restoring on the Data page ------------------------------------------------------------------------

def read_config(raw: bytes) -> fc.ReviewConfig:
    """The configuration in an uploaded file: a configuration JSON, a review's JSON export, or an HTML report.

    Raises
    ------
    ValueError
        With a message to show, when the file holds no valid configuration.
    """
    if len(raw) > MAX_FILE:
        raise ValueError(_message(f"the file is larger than {MAX_FILE // 1_000_000} MB"))
    content = raw.decode("utf-8", errors="replace")
    if content.lstrip()[:1] != "{":  # an HTML report: its embedded configuration
        # Two str.find calls, linear in the file (a lazy regex is quadratic on many opening tags without a close).
        start = content.find(_CONFIG_OPEN)
        end = content.find(_CONFIG_CLOSE, start + len(_CONFIG_OPEN)) if start >= 0 else -1
        if end < 0:
            raise ValueError(_message("the file is neither a configuration (JSON) nor a review's HTML report"))
        start = content.rfind(_CONFIG_OPEN, start, end)   # the opening tag this close belongs to
        content = content[start + len(_CONFIG_OPEN):end]
    try:
        parsed = json.loads(content)
    except ValueError as exc:
        raise ValueError(_message(f"not JSON ({exc})")) from None
    except RecursionError:
        raise ValueError(_message("its JSON is nested too deeply")) from None
    if isinstance(parsed, dict) and isinstance(parsed.get("context"), dict) and "configuration" in parsed["context"]:
        parsed = parsed["context"]["configuration"]  # a review's JSON export
    return fc.ReviewConfig.from_dict(parsed)


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
            st.error(text.md(str(exc)))
            return
        problem = missing_columns(config, st.session_state[state.FRAME])
        if problem:
            st.error(problem)
            return
        st.session_state[RESTORED] = uploaded.file_id
        notes = unsupported(config)
        request(config, " ".join(([OTHER_FILE] if _other_file(config) else [])
                                 + ([("Not offered here, so the default is used: " + "; ".join(notes) + ".")]
                                    if notes else [])))


# Exports ---------------------------------------------------------------------------------------------

def _source() -> tuple[dict, bytes | None]:
    """(source facts, bytes to hash) of the current dataset: an upload's SHA-256 is its token."""
    token, name = st.session_state[state.DATASET_TOKEN], st.session_state[state.DATASET_NAME]
    if token.startswith("sample:"):
        return {"name": name}, (data.SAMPLE_DIR / data.SAMPLES[token.removeprefix("sample:")]["file"]).read_bytes()
    local_source = st.session_state[state.LOCAL_SOURCE]
    if local_source is not None:   # data on this machine: its files are named, not hashed
        rows = ("every row, counted by DuckDB where it lies" if data.counted()
                else f"a random sample of {len(st.session_state[state.FRAME]):,} rows (DuckDB reservoir, seed 0)")
        return {"name": name, "files": len(local_source.files) or 1, "bytes": local_source.n_bytes, "rows": rows}, None
    source = {"name": name, "sha256": token.removeprefix("upload:")}
    if st.session_state[state.DATASET_BYTES] is not None:
        source["bytes"] = int(st.session_state[state.DATASET_BYTES])
    return source, None


@memo(2)
def built_review(token: str, config_json: str, _frame, _config: fc.ReviewConfig, _source: dict,
                 _data: bytes | None) -> fc.Review:
    """``fc.build_review`` of the dataset under the configuration whose JSON is `config_json` (for data counted
    where it lies, ``fc.build_review_from_counts`` of its count tables)."""
    if data.counted():
        _, counted = data.analyse(_config.mapping)
        return fc.build_review_from_counts(counted.counts, _config, source=_source)
    return fc.build_review(_frame, _config, source=_source, data=_data)


@memo(2)
def export_files(token: str, config_json: str, _review: fc.Review) -> dict:
    """The review's downloads by kind: ``html`` (the report), ``json`` (the review), ``zip`` (every table as CSV)."""
    return {"html": fc.render_report(_review).encode("utf-8"), "json": _review.to_json().encode("utf-8"),
            "zip": tables_zip(_review)}


def tables_zip(review: fc.Review) -> bytes:
    """Every table of `review` as a CSV file (context in ``#`` header lines, formula cells neutralised) in a ZIP.

    File names are ``fc.export_name(dataset, model, table)``; each file's header adds the table, its
    model and the model's threshold to the review's context.
    """
    dataset = review.source.get("name", "data")
    models = sorted(review.models, key=lambda m: -len(m.name))  # the longest name that prefixes a key
    buffer, names = io.BytesIO(), set()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for key, table in review.tables().items():
            model = next((m for m in models if key.startswith(m.name + ".")), None)
            part = key[len(model.name) + 1:] if model else key
            context = {"table": part} | ({"model": model.name, "threshold": model.threshold} if model else {})
            name = fc.export_name(dataset, *([model.name] if model else []), part, suffix="csv")
            stem, n = name[:-4], 2
            while name in names:
                name, n = f"{stem}-{n}.csv", n + 1
            names.add(name)
            archive.writestr(name, fc.table_to_csv(table, context | review.context()))
    return buffer.getvalue()


def export_section() -> None:
    """Overview: downloads of the configuration at once, and of the report, the review's JSON and every table
    (CSV in a ZIP) once the review is prepared (built on request, memoized per configuration)."""
    st.subheader("Export this review")
    try:
        config = config_from_session()
    except ValueError as exc:
        st.caption(f"Nothing to export yet: {text.md(exc)}")
        return
    token, dataset = st.session_state[state.DATASET_TOKEN], st.session_state[state.DATASET_NAME]
    config_json = config.to_json()
    source, raw = _source()
    args = (token, config_json, st.session_state[state.FRAME], config, source, raw)
    st.caption("The report is one HTML file that opens offline and prints cleanly: the data summary (file name, "
               "rows, SHA-256), the mapping and every option, the findings and policy verdicts, every chart and "
               "table of every model. The configuration restores this view with the same data file (Data page, "
               "Restore a saved review); this page's link holds it too, never the data.")
    c1, c2, c3, c4 = st.columns(4)
    c1.download_button("Configuration (JSON)", config_json, file_name=fc.export_name(dataset, "review-config",
                                                                                      suffix="json"),
                       mime="application/json", on_click="ignore", width="stretch")
    review = built_review.peek(*args)
    slot = c2.empty()  # the button, then the report's download in its place
    if review is None:
        if not slot.button("Prepare the report", type="primary", width="stretch",
                         help="Computes every model's tables at its threshold with these settings (a few seconds), "
                              "then offers the report, the review's JSON and every table as CSV."):
            return
        try:
            with progress.computing("every table of the review", config.ci):
                review = built_review(*args)
        except ValueError as exc:
            st.error(text.md(str(exc)))
            return
    with progress.stage("Writing the report, the review's JSON and the tables ..."):
        files = export_files(token, config_json, review)
    slot.download_button("Report (HTML)", files["html"], file_name=fc.export_name(dataset, "review", suffix="html"),
                       mime="text/html", on_click="ignore", width="stretch", type="primary")
    c3.download_button("Review (JSON)", files["json"], file_name=fc.export_name(dataset, "review", suffix="json"),
                       mime="application/json", on_click="ignore", width="stretch")
    c4.download_button("Every table (CSV, ZIP)", files["zip"], file_name=fc.export_name(dataset, "tables", suffix="zip"),
                       mime="application/zip", on_click="ignore", width="stretch")
    st.caption(f"Prepared {review.created} (UTC) with these settings; a change of any setting asks to prepare it "
               "again.")
