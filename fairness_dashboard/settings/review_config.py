"""The review's configuration and the session: the session's settings as one ``fairness_core.ReviewConfig``
and back.

The configuration is what :func:`fairness_core.build_review` needs (mapping, slice, per-score
thresholds, every option a number depends on) plus ``view``: every other kept widget value (the
sidebar's model and subgroup order, chart ranges, page choices), and ``source``, the data it was
made with (file name and SHA-256, or the sample). :func:`config_from_session` reads it from the
widgets' kept values (:func:`fairness_dashboard.settings.controls.setting`, with the pages' defaults), so a review
built from it has the numbers the pages show; :func:`apply_config` writes it back into those kept values, so
every page shows the same view. A restore or a link's settings are applied at the start of the next
run (:func:`request`, then :func:`apply_requested`, the first thing ``fairness_dashboard.settings.page_frame.draw``
does), before any widget is drawn. The URL is ``fairness_dashboard.settings.review_url``, restoring a file
``fairness_dashboard.settings.review_restore``, the exports ``fairness_dashboard.settings.review_export``.
"""

from __future__ import annotations

import json

import streamlit as st

import fairness_core as fc

from ..data import analysis, loading, profiling
from ..presentation import escape, formats, labels
from ..results.summaries import DEFAULTS, classwise_reduction
from ..session import state
from . import controls

GATE_TOLERANCE = fc.ReviewConfig.__dataclass_fields__["max_worsening"].default   # the library's default

PENDING = "review:pending"         # ReviewConfig to apply at the start of the next run (before any widget)
NOTICE = "review:notice"           # text (Markdown-safe) to show in a toast on the next run
SOURCE = "source"                  # the view entry naming the data: {"name", "sha256"} or {"sample", "name"}
# Kept values that ReviewConfig holds in its own fields (the rest goes to its `view`); see config_from_session.
PAGE_OPTIONS = ("distance", "reduction", "reference", "reference_group")
# The kept record of the consistency the Dataset metrics page last computed (its rows, features, k and sample; see
# consistency_run): a review has consistency when it matches the page's current rows and options.
CONSISTENCY_RUN = "dataset:consistency_run"


def config_from_session() -> fc.ReviewConfig:
    """The review configuration of the current session: what every page shows, as one object.

    The mapping and slice of the session, each mapped score's threshold, every option a number
    depends on (read as the pages read them: :func:`fairness_dashboard.settings.controls.setting` with the pages'
    defaults, ``disparity_settings`` for references) and, in ``view``, every other kept widget value and the
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
    mapping_key, scored = analysis.analyse(mapping)
    setting = controls.setting
    thresholds = tuple((score, float(setting(f"threshold:{score}", analysis.default_threshold(scored, score))))
                       for score in mapping.scores)
    show = bool(setting("intervals:show", True))
    metrics = [m for m in setting("rates:metrics", DEFAULTS["rates:metrics"]) if m in labels.RATE_LABELS]
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
        adjust=controls.resolve_adjust(_adjust_choice(), controls.comparisons_per_table(len(scored.subgroups.names))),
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
        gate_rules=tuple(setting("gate:rules", ())), gate_strict=bool(setting("gate:strict", False)),
        gate_labels=bool(setting("gate:labels", False)),
        max_worsening=float(setting("gate:max_worsening", GATE_TOLERANCE)),
        suggest_measure=setting("gate:suggest_measure", None),
        view=((SOURCE, _source_entry()), *_view(covered, mapping_key)))


def _adjust_choice() -> str:
    """The sidebar's "Multiple comparisons" choice (a key of ``labels.ADJUSTMENTS``; "auto" before it is drawn)."""
    choice = controls.setting("intervals:adjust", "auto")
    return choice if choice in labels.ADJUSTMENTS else "auto"


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
    features = setting(f"dataset:features:{token}", profiling.feature_columns(token, frame, scored.mapping)[:8])
    n_neighbors = setting("dataset:n_neighbors", 5)
    every_row = bool(setting("dataset:consistency_all", False))
    small = scored.n_rows <= loading.CONSISTENCY_SAMPLE
    run = consistency_run(token, mapping_key, features, n_neighbors,
                          None if small or every_row else loading.CONSISTENCY_SAMPLE)
    if not features or setting(CONSISTENCY_RUN, None) != run:
        return {}, {CONSISTENCY_RUN}
    return ({"consistency_features": tuple(run["features"]), "consistency_neighbors": run["n_neighbors"],
             "consistency_sample": None if every_row else loading.CONSISTENCY_SAMPLE},
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
                        ("protected", list(mapping.protected)), ("identities", list(mapping.indicators)),
                        ("weight", mapping.weight), ("time", mapping.time)):
        _put(key + name, value)
    for name in (f"outcome:{mapping.label}:{mapping.positive_label}",   # drawn from the restored mapping (pages/data.py)
                 *(f"words:{mapping.label}:{mapping.positive_label}:{side}" for side in ("positive", "negative"))):
        st.session_state.pop(state.KEEP_PREFIX + key + name, None)
        st.session_state.pop("w:" + key + name, None)
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
        mapping_key, scored = analysis.analyse(mapping)
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
        named = labels.reference_mode(reference) == "named"
        _put(f"{page}:reference", "named" if named else reference)
        if named:
            _put(f"{page}:reference_group", reference)
    # The release gate's options: the tolerance has a widget (Overview, Compare models); the rules and strictness
    # only ride along, so a configuration saved again still drives the command line's gate unchanged.
    _put("gate:max_worsening", float(config.max_worsening))
    _put("gate:rules", list(config.gate_rules))
    _put("gate:strict", bool(config.gate_strict))
    _put("gate:labels", bool(config.gate_labels))
    _put("gate:suggest_measure", config.suggest_measure)
    _put("classwise:metric", config.classwise_metric)
    _put("classwise:reduction", "std" if config.classwise_reduction == "std" else "difference")
    if config.classwise_reduction != "std":
        _put("classwise:difference", "absolute" if config.classwise_reduction == "absolute_difference" else "signed")
        for name, value in zip(("first", "second"), config.classwise_subgroups):
            _put(f"classwise:{name}", value)
    own = dict(config.subgroup_thresholds)
    for score in mapping.scores:  # a plain dict the page edits in place (fairness_dashboard.sections.threshold)
        st.session_state[f"{state.KEEP_PREFIX}subgroup_thresholds:{token}:{score}"] = dict(own.get(score, ()))
    st.session_state.pop(state.KEEP_PREFIX + CONSISTENCY_RUN, None)
    if config.consistency_features and scored is not None:
        every_row = config.consistency_sample is None
        _put(f"dataset:features:{token}", list(config.consistency_features))
        _put("dataset:n_neighbors", int(config.consistency_neighbors))
        _put("dataset:consistency_all", every_row)
        small = scored.n_rows <= loading.CONSISTENCY_SAMPLE
        _put(CONSISTENCY_RUN, consistency_run(token, mapping_key, config.consistency_features,
                                              config.consistency_neighbors,
                                              None if small or every_row else loading.CONSISTENCY_SAMPLE))


def _put(name: str, value) -> None:
    """Set the kept value of widget `name` and drop its own state, so it is drawn with that value."""
    st.session_state[state.KEEP_PREFIX + name] = value
    st.session_state.pop("w:" + name, None)


def unsupported(config: fc.ReviewConfig) -> list:
    """Sentences on options of `config` the app's widgets do not offer (they fall back to a default)."""
    notes = []
    if config.ci is not None and config.ci not in labels.LEVELS:
        notes.append(f"confidence level {config.ci:g} (the app offers {', '.join(map(formats.level_text, labels.LEVELS))})")
    if config.n_boot not in labels.N_BOOTS:
        notes.append(f"{config.n_boot:,} resamples (the app offers {', '.join(f'{n:,}' for n in labels.N_BOOTS)})")
    if config.consistency_features and config.consistency_sample not in (None, loading.CONSISTENCY_SAMPLE):
        notes.append(f"consistency on {config.consistency_sample:,} sampled rows (the app counts a sample of "
                     f"{loading.CONSISTENCY_SAMPLE:,} rows or every row)")
    return notes


def missing_column_names(config: fc.ReviewConfig, frame) -> list:
    """The columns `config` uses (mapping and slice) that `frame` lacks, in the order it uses them."""
    m = config.mapping
    used = [m.label, *m.scores, *([m.predicted_label] if m.predicted_label else []), *m.protected, *m.indicators,
            *([m.weight] if m.weight else []), *(c.column for c in config.slice.conditions)]
    return [c for c in dict.fromkeys(used) if c not in frame.columns]


def missing_columns(config: fc.ReviewConfig, frame) -> str | None:
    """Why `config` cannot be applied to `frame` (Markdown-safe), or None when it has every column it uses."""
    missing = missing_column_names(config, frame)
    if not missing:
        return None
    made = dict(config.view).get(SOURCE) or {}
    name = f" ({escape.md(made['name'])})" if isinstance(made.get("name"), str) else ""
    return (f"The saved review uses columns this data does not have: {', '.join(escape.md(c) for c in missing)}. "
            f"Load the data file the review was made with{name}, then restore the review again.")


def request(config: fc.ReviewConfig, notice: str = "") -> None:
    """Apply `config` at the start of a new run (widgets already drawn in this run cannot change)."""
    st.session_state[PENDING] = config
    st.session_state[NOTICE] = notice
    st.rerun()


def apply_requested() -> None:
    """Apply the configuration :func:`request` asked for in the previous run, with its notice in a toast (the first
    thing ``fairness_dashboard.settings.page_frame.draw`` does, before any widget)."""
    pending = st.session_state.pop(PENDING, None)
    if pending is not None:
        apply_config(pending)
        notice = st.session_state.pop(NOTICE, "")
        st.toast("Restored the review's settings." + (f" {notice}" if notice else ""))


def unreadable(problem: str) -> str:
    return (f"The saved settings cannot be read: {problem}. Tip: save them again from the app (Overview, Export "
            "this review).")


OTHER_FILE = "This file is not the one the review was made with (its SHA-256 differs), so the numbers may differ."


def other_file(config: fc.ReviewConfig) -> bool:
    """Whether the loaded data is an upload other than the one `config` names by SHA-256 (False when it names none)."""
    source = dict(config.view).get(SOURCE)
    sha = source.get("sha256") if isinstance(source, dict) else None
    return isinstance(sha, str) and st.session_state[state.DATASET_TOKEN] != "upload:" + sha
