"""A model review: every number, finding and policy verdict of the dashboard's pages from one configuration.

:func:`build_review` is the one builder behind the app's exports and the command line
(``python -m fairness_core``): the same configuration gives the same tables, findings and
verdicts wherever it runs. It calls the public metric functions with the options of
:class:`ReviewConfig`, whose defaults are the dashboard's defaults; the policy rules each page
applies, and each page's findings and verdicts, are built in one place (``_conclusions``).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import json
from functools import lru_cache
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import numpy as np
import pandas as pd

from .._metrics.auc import BiasAucResult, bias_auc_table
from .._metrics.calibration import CalibrationDisparityResult
from .._disparity.compare import NamedReference, named_reference
from .config_schema import problems
from .._counts.calibration import calibration_counts
from .._counts.confusion import confusion_counts
from .._counts.thresholds import threshold_counts
from .._metrics.consistency import consistency
from .._metrics.smoothed_edf import smoothed_edf
from .export import _json_cell, table_data
from .._counts.rates import RATE_TO_METRIC
from .conclusions import (auc_conclusions, calibration_conclusions, classwise_conclusions,
                           dataset_conclusions, rate_conclusions)
from .._stats.intervals import wilson_interval
from .._models.aucs import compare_model_aucs
from .._models.calibration import compare_model_calibration
from .._models.rates import compare_models
from .._metrics.performance import performance_table
from .._counts.scored_data import ScoredData
from .._data.columns import ColumnMapping
from .._subgroups.slices import Condition, Slice
from .._metrics.subgroup_thresholds import subgroup_threshold_effect

CONFIG_VERSION = 1
CONFIG_MESSAGE = "The review configuration is not valid: {problem}. Tip: save one from the app, or see ReviewConfig."
_NOT_OPTIONS = ("mapping", "slice", "thresholds", "subgroup_thresholds", "view")


@dataclass(frozen=True)
class ReviewConfig:
    """Everything a review depends on besides the data: the mapping, the rows, and every page option.

    It is plain data: :meth:`to_dict` / :meth:`from_dict` (and ``to_json`` / ``from_json``) write and
    read it, so a review can be saved, restored in the app, and run again from the command line.
    The defaults are the dashboard's defaults.

    Attributes
    ----------
    mapping : ColumnMapping
        Label, positive value, score columns, predicted-label column, protected attributes or
        identity columns, and the subgroup options.
    slice : Slice
        The rows analysed (default: all).
    thresholds : tuple of (str, float)
        Decision threshold per score column (predictions ``score >= threshold``); a score without
        one gets :func:`default_threshold`.
    baseline : str or None, default=None
        A score column the other score columns are compared with: with two or more scores, the
        review then holds each one's differences from it with paired intervals
        (:func:`compare_models` at each threshold, :func:`compare_model_aucs`, and for
        probabilities :func:`compare_model_calibration`). None: no differences.
    include_small : bool, default=False
        Whether small subgroups enter reductions, findings and verdicts.
    ci : float in (0, 1) or None, default=0.95
        Level of every interval; None: no intervals (verdicts then have no interval either).
    n_boot : int >= 100, default=1000
    adjust : {None, 'bonferroni', 'holm', 'fdr_bh'}
        Multiple-comparison adjustment of the comparison intervals.
    auc_p, auc_weight : float
        Power mean exponent (default -5) and overall-AUC weight (0.25) of the bias AUC score.
    auc_min_score : float or None
        Optional minimum bias AUC score (a rule); None: no rule.
    rate_metrics : tuple of str
        Rates assessed (``RATE_NAMES``), default false positive and false negative rates.
    rate_distance, rate_reduction, rate_reference : str
        Distance ('diff' / 'ratio'), reduction ('max' / 'mean') and reference of the rate
        disparities (defaults 'diff', 'max', 'rest'). A reference is a keyword or
        ``named_reference(name)`` (written as ``{"subgroup": name}`` in JSON).
    rate_max_difference : float in [0, 1], default=0.1
        Bound of each rate's max difference (and equalized odds') under the 'diff' distance; under
        'ratio' the four-fifths band [0.8, 1.25] applies.
    cal_n_bins, cal_strategy, cal_min_per_group : int, str, int
        Calibration bins (10, 'uniform') and the rows a bin needs (5).
    cal_distance, cal_reduction, cal_reference : str
    cal_bound : float or None
        Bound of the ECE disparity in the units of `cal_distance`; None: the default rule (a
        difference of ECEs of at most 0.1; no bound on a ratio).
    dataset_distance, dataset_reduction, dataset_reference : str
    dataset_max_difference : float in [0, 1], default=0.1
        Bound of the largest base-rate difference (ratio: the band [0.8, 1.25]).
    dataset_concentration : float > 0, default=1.0
        Total pseudo-count of the smoothed EDF's prior.
    subgroup_thresholds : tuple of (str, tuple of (str, float))
        Per score column, own thresholds of some subgroups (the others follow the score's
        threshold): the review then has that score's per-subgroup thresholds table
        (:func:`subgroup_threshold_effect`). Written as ``{score: {subgroup: threshold}}``; a
        mapping is accepted too. Needs disjoint subgroups.
    classwise_metric : {'recall', 'precision', 'fscore'}, default='fscore'
    classwise_reduction : {'std', 'absolute_difference', 'difference'}, default='std'
    classwise_subgroups : tuple of str
        The two subgroups of a difference (first, second); empty: the two largest. Class-wise bias
        (:meth:`ClassCounts.unweighted_average_bias` of the predicted label column) is part of the
        review when the label has more than two classes (``mapping.all_classes``) and a predicted
        label column is mapped; a two-class label's per-class recall and precision are the rates.
    consistency_features : tuple of str
        Numeric feature columns of kNN consistency (:func:`consistency`); empty (the default):
        consistency is not computed, as the app computes it only when asked.
    consistency_neighbors : int >= 1, default=5
    consistency_sample : int or None, default=20000
        Rows whose neighbours are counted (a sample, seed 0); None: every row.
    view : tuple of (str, JSON value)
        Settings of an application showing the review (e.g. the dashboard's subgroup order or the
        axis range of a chart) that change no number: fairness_core ignores them, but keeps and
        writes them (under ``"view"`` in :meth:`to_dict`), so that a saved configuration restores
        the same view. A mapping is accepted too; values are checked to be JSON.
    """

    mapping: ColumnMapping
    slice: Slice = field(default_factory=Slice)
    thresholds: tuple = ()
    baseline: Optional[str] = None
    include_small: bool = False
    ci: Optional[float] = 0.95
    n_boot: int = 1000
    adjust: Optional[str] = None
    auc_p: float = -5.0
    auc_weight: float = 0.25
    auc_min_score: Optional[float] = None
    rate_metrics: tuple = ("false_positive_rate", "false_negative_rate")
    rate_distance: str = "diff"
    rate_reduction: str = "max"
    rate_reference: str = "rest"
    rate_max_difference: float = 0.1
    cal_n_bins: int = 10
    cal_strategy: str = "uniform"
    cal_min_per_group: int = 5
    cal_distance: str = "diff"
    cal_reduction: str = "max"
    cal_reference: str = "rest"
    cal_bound: Optional[float] = None
    dataset_distance: str = "diff"
    dataset_reduction: str = "max"
    dataset_reference: str = "rest"
    dataset_max_difference: float = 0.1
    dataset_concentration: float = 1.0
    subgroup_thresholds: tuple = ()
    classwise_metric: str = "fscore"
    classwise_reduction: str = "std"
    classwise_subgroups: tuple = ()
    consistency_features: tuple = ()
    consistency_neighbors: int = 5
    consistency_sample: Optional[int] = 20_000
    view: tuple = ()

    def __post_init__(self):
        for name in ("n_boot", "cal_n_bins", "cal_min_per_group", "consistency_neighbors", "consistency_sample"):
            value = getattr(self, name)   # a whole float from JSON (10.0) as the int it stands for
            if isinstance(value, float) and value.is_integer():
                object.__setattr__(self, name, int(value))
        pairs = self.view.items() if isinstance(self.view, dict) else self.view
        # JSON values as JSON reads them (lists, not tuples), so a configuration equals its round trip.
        try:
            object.__setattr__(self, "view", tuple((str(key), json.loads(json.dumps(value, allow_nan=False)))
                                                   for key, value in pairs))
        except (TypeError, ValueError, RecursionError) as exc:
            raise ValueError(CONFIG_MESSAGE.format(problem=f"view: {exc}")) from None
        own = self.subgroup_thresholds
        object.__setattr__(self, "subgroup_thresholds", tuple(
            (str(score), tuple((str(n), float(t)) for n, t in (dict(values) if not isinstance(values, dict)
                                                                else values).items()))
            for score, values in (own.items() if isinstance(own, dict) else own)))
        for name in ("classwise_subgroups", "consistency_features"):
            object.__setattr__(self, name, tuple(str(v) for v in getattr(self, name)))
        if isinstance(self.rate_metrics, (list, tuple)):   # rate_disparity's name of the selection rate, accepted too
            object.__setattr__(self, "rate_metrics", tuple(
                "selection_rate" if m == "statistical_parity" else m for m in self.rate_metrics))
        found = problems(self.to_dict())   # every field's type and bound (_config_schema.SCHEMA)
        if found:
            raise ValueError(CONFIG_MESSAGE.format(problem="; ".join(found[:3])))

    def threshold_of(self, score: str, values: np.ndarray) -> float:
        """The decision threshold of `score`: the configured one, else :func:`default_threshold`."""
        return float(dict(self.thresholds).get(score, default_threshold(values)))

    def options(self) -> dict:
        """Every option but the mapping, slice, thresholds and view, as a dict."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                if f.name not in _NOT_OPTIONS}

    def to_dict(self) -> dict:
        """The configuration as JSON-ready data (see :meth:`from_dict`)."""
        options = self.options()
        options = {k: list(v) if isinstance(v, tuple) else v for k, v in options.items()}
        for key, value in options.items():   # a named reference is written so that it never reads as a keyword
            if isinstance(value, NamedReference):
                options[key] = {"subgroup": str(value)}
        return {"version": CONFIG_VERSION,
                "mapping": {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(self.mapping).items()},
                "slice": [dataclasses.asdict(c) | {"values": list(c.values)} for c in self.slice.conditions],
                "thresholds": dict(self.thresholds),
                "subgroup_thresholds": {score: dict(own) for score, own in self.subgroup_thresholds},
                "options": options, "view": dict(self.view)}

    @classmethod
    def from_dict(cls, data: Any) -> "ReviewConfig":
        """Read a configuration written by :meth:`to_dict`, checking every key.

        Raises
        ------
        ValueError
            For anything that is not such a configuration (``CONFIG_MESSAGE``, naming the problem).
        """
        if not isinstance(data, dict) or not isinstance(data.get("mapping"), dict):
            raise ValueError(CONFIG_MESSAGE.format(problem="expected an object with a 'mapping'"))
        if data.get("version", CONFIG_VERSION) != CONFIG_VERSION:
            raise ValueError(CONFIG_MESSAGE.format(problem=f"version {data.get('version')!r} is not {CONFIG_VERSION}"))
        found = problems(data)   # every key, type and bound, before anything is built from it
        if found:
            raise ValueError(CONFIG_MESSAGE.format(problem="; ".join(found[:3])))
        options = data.get("options") or {}
        own = data.get("subgroup_thresholds") or {}
        try:
            mapping = ColumnMapping(**{k: tuple(v) if isinstance(v, list) else v for k, v in data["mapping"].items()})
            conditions = Slice(tuple(Condition(**(c | {"values": tuple(c.get("values", ()))}))
                                     for c in data.get("slice") or []))
            thresholds = tuple((str(k), float(v)) for k, v in (data.get("thresholds") or {}).items())
            options = {k: tuple(v) if isinstance(v, list) else
                       named_reference(str(v["subgroup"])) if isinstance(v, dict) and set(v) == {"subgroup"} else v
                       for k, v in options.items()}
        except (TypeError, ValueError) as exc:
            raise ValueError(CONFIG_MESSAGE.format(problem=str(exc))) from None
        return cls(mapping=mapping, slice=conditions, thresholds=thresholds, subgroup_thresholds=own,
                   view=data.get("view") or {}, **options)

    def to_json(self) -> str:
        """:meth:`to_dict` as JSON text."""
        return json.dumps(self.to_dict(), indent=1, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> "ReviewConfig":
        """Read :meth:`to_json`'s text (ValueError with ``CONFIG_MESSAGE`` when it is not one)."""
        return cls.from_dict(parse_json(text))


def parse_json(text: str) -> Any:
    """JSON text as data, for a configuration: ValueError with ``CONFIG_MESSAGE`` when it is not JSON.

    Parameters
    ----------
    text : str

    Returns
    -------
    any

    Raises
    ------
    ValueError
        When `text` is not JSON, or is nested too deeply for the parser (e.g. 100,000 brackets).
    """
    try:
        return json.loads(text)
    except (TypeError, ValueError) as exc:
        raise ValueError(CONFIG_MESSAGE.format(problem=f"not JSON ({exc})")) from None
    except RecursionError:
        raise ValueError(CONFIG_MESSAGE.format(problem="the JSON is nested too deeply")) from None


def default_threshold(values: np.ndarray) -> float:
    """The default decision threshold of a score column.

    0.5 for probabilities (every value in [0, 1]); otherwise the middle of the range, rounded down
    to a whole number when every score is a whole number (e.g. 5 for COMPAS deciles 1-10).

    Parameters
    ----------
    values : ndarray of shape (n_samples,)

    Returns
    -------
    float
    """
    values = np.asarray(values, dtype=np.float64)
    return threshold_for_range(float(values.min()), float(values.max()), bool(np.all(np.mod(values, 1) == 0)))


def threshold_for_range(lo: float, hi: float, whole: bool) -> float:
    """:func:`default_threshold` from the smallest and largest score and whether every score is whole."""
    if lo >= 0 and hi <= 1:
        return 0.5
    middle = lo / 2 + hi / 2   # (lo + hi) / 2 would overflow for scores near the largest float
    return float(int(middle)) if whole else middle


@dataclass(frozen=True)
class ModelReview:
    """The review of one model: a score column at its threshold, or the predicted-label column.

    Attributes
    ----------
    name : str
        The column.
    kind : {'score', 'predictions'}
    threshold : float or None
        None for given predictions.
    performance : DataFrame
        :func:`performance_table` at the threshold (all rows first).
    rate_table : DataFrame
        Every rate of every subgroup (``ConfusionCounts.table``, with Wilson intervals).
    rates : dict of str to DisparityResult
        Per assessed rate (``rate_metrics``), ``'equalized_odds'`` and ``'theil_index'`` (the
        two-group Theil index of each comparison): the disparity at the configured distance,
        reduction and reference; its ``table`` holds every comparison.
    p_percent, equal_opportunity : RatioScoresResult
    auc_table : DataFrame or None
        Subgroup, BPSN and BNSP AUCs (scores only).
    bias_auc : BiasAucResult or None
    calibration : CalibrationDisparityResult or None
        None for predictions, or a score that is not a probability (see `calibration_note`).
    reliability : DataFrame or None
    calibration_note : str
    findings : tuple of str
    verdicts : tuple of Verdict
    classwise : UnweightedAverageBiasResult or None
        Class-wise bias of the predicted label column of a multi-class label (see
        ``ReviewConfig.classwise_metric``); None otherwise.
    subgroup_thresholds : SubgroupThresholdEffect or None
        Every assessed rate and accuracy at the configured per-subgroup thresholds beside the
        single threshold (``ReviewConfig.subgroup_thresholds``); None when none are configured.
    """

    name: str
    kind: str
    threshold: Optional[float]
    performance: pd.DataFrame
    rate_table: pd.DataFrame
    rates: dict
    p_percent: Any
    equal_opportunity: Any
    auc_table: Optional[pd.DataFrame] = None
    bias_auc: Optional[BiasAucResult] = None
    calibration: Optional[CalibrationDisparityResult] = None
    reliability: Optional[pd.DataFrame] = None
    calibration_note: str = ""
    findings: tuple = ()
    verdicts: tuple = ()
    classwise: Any = None
    subgroup_thresholds: Any = None


@dataclass(frozen=True)
class Review:
    """Everything a review shows, built by :func:`build_review`.

    Attributes
    ----------
    config : ReviewConfig
    source : dict
        ``name``, ``sha256`` and ``bytes`` of the input when known, ``rows_input``, ``rows_used``.
    exclusions : DataFrame
        Rows left out and why (``reason, rows``).
    subgroups : DataFrame
        Each subgroup's size and whether it is small.
    base_rate : tuple of float
        (base rate, ci_low, ci_high) of the label over the rows used (Wilson interval).
    dataset_parity : DisparityResult
        Base-rate disparity (dataset statistical parity) at the configured options.
    dataset_findings : tuple of str
    dataset_verdicts : tuple of Verdict
    edf : SmoothedEdfResult or None
        Smoothed empirical differential fairness of the labels (None when the subgroups overlap).
    models : tuple of ModelReview
    consistency : ConsistencyResult or None
        kNN consistency of the labels when ``ReviewConfig.consistency_features`` are set.
    differences : dict of str to DataFrame
        With a configured baseline and two or more scores: ``'rates'`` (:func:`compare_models`),
        ``'aucs'`` (:func:`compare_model_aucs`) and, with two or more probability columns
        including the baseline, ``'calibration'`` (:func:`compare_model_calibration`); else empty.
    created : str
        UTC time, ISO 8601.
    version : str
        The software version.
    """

    config: ReviewConfig
    source: dict
    exclusions: pd.DataFrame
    subgroups: pd.DataFrame
    base_rate: tuple
    dataset_parity: Any
    dataset_findings: tuple
    dataset_verdicts: tuple
    edf: Any
    models: tuple
    created: str
    version: str
    consistency: Any = None
    differences: dict = field(default_factory=dict)

    @property
    def verdicts(self) -> list:
        """Every verdict: the dataset's, then each model's."""
        return list(self.dataset_verdicts) + [v for m in self.models for v in m.verdicts]

    def exit_status(self, strict: bool = False, labels: bool = False) -> int:
        """0 when no verdict of the models fails, 1 when one does.

        Parameters
        ----------
        strict : bool, default=False
            Inconclusive and not assessable verdicts fail too.
        labels : bool, default=False
            Judge the rules about the labels (``dataset_verdicts``: properties of the data, which no
            model can change) too; by default they are reported, never gating.

        Returns
        -------
        int
        """
        bad = {"fail", "inconclusive", "not_assessable"} if strict else {"fail"}
        judged = self.verdicts if labels else [v for m in self.models for v in m.verdicts]
        return int(any(v.status in bad for v in judged))

    def context(self) -> dict:
        """What every exported table carries: source, configuration, time and version."""
        return {"source": self.source, "configuration": self.config.to_dict(), "created": self.created,
                "software": f"fairness_core {self.version}"}

    def tables(self) -> dict:
        """Every table of the review, by a file-name-safe key: ``subgroups``, ``exclusions``,
        ``dataset_parity`` and per model ``<model>.performance``, ``<model>.rates``, ``<model>.<metric>``,
        ``<model>.p_percent``, ``<model>.equal_opportunity``, ``<model>.aucs``,
        ``<model>.calibration_errors``, ``<model>.reliability``; when configured, ``smoothed_edf``,
        ``consistency``, ``<model>.classwise`` and ``<model>.classwise_per_class`` (class-wise bias),
        ``<model>.subgroup_thresholds`` and ``<model>.subgroup_threshold_disparities``."""
        out = {"subgroups": self.subgroups, "exclusions": self.exclusions,
               "dataset_parity": self.dataset_parity.table}
        if self.edf is not None:
            out["smoothed_edf"] = self.edf.table
        if self.consistency is not None:
            out["consistency"] = consistency_table(self.consistency)
        for m in self.models:
            out[f"{m.name}.performance"] = m.performance
            out[f"{m.name}.rates"] = m.rate_table
            out.update({f"{m.name}.{metric}": result.table for metric, result in m.rates.items()})
            out[f"{m.name}.p_percent"] = m.p_percent.table
            out[f"{m.name}.equal_opportunity"] = m.equal_opportunity.table
            if m.auc_table is not None:
                out[f"{m.name}.aucs"] = m.auc_table
            if m.calibration is not None:
                out[f"{m.name}.calibration_errors"] = m.calibration.errors
                out[f"{m.name}.reliability"] = m.reliability
            if m.classwise is not None:
                out[f"{m.name}.classwise"] = m.classwise.table
                out[f"{m.name}.classwise_per_class"] = m.classwise.per_class
            if m.subgroup_thresholds is not None:
                out[f"{m.name}.subgroup_thresholds"] = m.subgroup_thresholds.table
                out[f"{m.name}.subgroup_threshold_disparities"] = m.subgroup_thresholds.disparities
        for kind, table in self.differences.items():     # differences from the baseline, under its name
            out[f"{self.config.baseline}.{kind.removesuffix('s')}_differences"] = table
        return out

    def to_dict(self) -> dict:
        """The review as JSON-ready data: context, findings, verdicts, headline values and every table."""
        def verdicts(items):
            return [{"rule": v.rule.to_dict(), "value": _json_cell(v.value), "ci_low": _json_cell(v.ci_low),
                     "ci_high": _json_cell(v.ci_high), "status": v.status, "sentence": v.sentence,
                     "note": v.note} for v in items]

        models = []
        for m in self.models:
            headline = {metric: _json_cell(r.value) for metric, r in m.rates.items()}
            headline |= {"p_percent_score": _json_cell(m.p_percent.value),
                         "equal_opportunity_score": _json_cell(m.equal_opportunity.value)}
            if m.bias_auc is not None:
                headline |= {"bias_auc_score": _json_cell(m.bias_auc.value),
                             "overall_auc": _json_cell(m.bias_auc.overall_auc)}
            if m.calibration is not None:
                headline["calibration_disparity"] = _json_cell(m.calibration.value)
            if m.classwise is not None:
                headline["unweighted_average_bias"] = _json_cell(m.classwise.value)
            models.append({"name": m.name, "kind": m.kind, "threshold": m.threshold, "headline": headline,
                           "findings": list(m.findings), "verdicts": verdicts(m.verdicts),
                           "calibration_note": m.calibration_note})
        return {"context": self.context(),
                "base_rate": [_json_cell(v) for v in self.base_rate],
                "dataset": {"findings": list(self.dataset_findings), "verdicts": verdicts(self.dataset_verdicts),
                            "parity": _json_cell(self.dataset_parity.value),
                            "smoothed_edf": None if self.edf is None else _json_cell(self.edf.value),
                            "consistency": None if self.consistency is None else _json_cell(self.consistency.value)},
                "models": models,
                "exit_status": self.exit_status(),
                "tables": {name: table_data(frame) for name, frame in self.tables().items()}}

    def to_json(self) -> str:
        """:meth:`to_dict` as JSON text (NaN is null, infinity the string "inf")."""
        return json.dumps(self.to_dict(), indent=1, ensure_ascii=False, allow_nan=False)


def build_review(frame: pd.DataFrame, config: ReviewConfig, *, source: Optional[dict] = None,
                 data: Optional[bytes] = None) -> Review:
    """Compute a whole review of `frame` under `config`: every page's numbers, findings and verdicts.

    Per score column: the subgroup, BPSN and BNSP AUCs with the bias AUC score, the rates at its
    threshold (performance, each assessed rate's disparity, equalized odds, p% and equal
    opportunity scores) and, for a probability, calibration; the predicted-label column, if
    mapped, gets the rate part, and for a label with more than two classes class-wise bias. A score
    with ``subgroup_thresholds`` gets the per-subgroup thresholds table. Then the base-rate
    disparity and smoothed EDF of the labels, and their kNN consistency when
    ``consistency_features`` are set (on ``consistency_sample`` rows). With a ``baseline`` and two
    or more scores, every other score's differences from it with paired intervals
    (``Review.differences``). Intervals and samples use seed 0, so a review is reproducible.

    Parameters
    ----------
    frame : DataFrame
        The table as loaded (before the slice).
    config : ReviewConfig
    source : dict, optional
        Facts about the input recorded in the review (e.g. ``{"name": "compas.csv"}``).
    data : bytes, optional
        The input file's bytes, for its SHA-256 and size.

    Returns
    -------
    Review

    Raises
    ------
    ValueError
        As :meth:`ScoredData.from_frame` for a mapping that does not fit the data (each message
        says what to do), when the slice leaves no row, when the baseline is not a mapped score, or
        for class-wise, per-subgroup threshold or consistency options that do not fit the data (e.g.
        a feature column that is missing or not numeric).
    """
    from .._version import __version__

    level, n_boot = config.ci, config.n_boot
    sliced = frame if not config.slice.conditions else frame.loc[config.slice.mask(frame)].reset_index(drop=True)
    scored = ScoredData.from_frame(sliced, config.mapping)
    groups, y = scored.subgroups, scored.y_true
    info = dict(source or {})
    if data is not None:
        info |= {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
    info |= {"rows_input": int(len(frame)), "rows_in_slice": int(len(sliced)), "rows_used": int(len(y)),
             "slice": config.slice.describe()}
    boot = dict(ci=level, n_boot=n_boot, random_state=0)

    unknown = [score for score, _ in config.subgroup_thresholds if score not in scored.scores]
    if unknown:
        raise ValueError(f"Per-subgroup thresholds are given for {unknown}, which are not mapped score columns "
                         f"({list(scored.scores)}).")
    models = [_score_review(scored, score, config) for score in scored.scores]
    if scored.predicted is not None:
        counts = confusion_counts(y, scored.y_pred(), groups)
        models.append(with_classwise(
            _rate_review(counts, config.mapping.predicted_label, "predictions", None, config), config,
            len(scored.class_names), scored.subgroups.names, scored.subgroups.sizes, scored.class_counts))

    label_counts = confusion_counts(y, y, groups)
    dataset = dataset_conclusions(label_counts, **dataset_options(config))
    n_pos = int(np.asarray(y).sum())
    low, high = wilson_interval(n_pos, len(y), level if level is not None else 0.95)
    return Review(
        config=config, source=info, exclusions=scored.exclusions, subgroups=scored.subgroup_table(),
        base_rate=(n_pos / len(y), float(low), float(high)), dataset_parity=dataset.results["parity"],
        dataset_findings=dataset.findings, dataset_verdicts=dataset.verdicts,
        edf=(smoothed_edf(y, groups, concentration=float(config.dataset_concentration),
                          include_small=config.include_small, **boot) if groups.codes is not None else None),
        models=tuple(models), created=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        version=__version__, consistency=_consistency(sliced, scored, config),
        differences=_differences(scored, config))


def _differences(scored: ScoredData, config: ReviewConfig) -> dict:
    """Each score's differences from the configured baseline score, with paired intervals (seed 0): rate
    disparities, equalized odds and the ratio scores at each threshold, the AUCs, and for probabilities the ECEs."""
    if config.baseline is None:
        return {}
    if config.baseline not in scored.scores:
        raise ValueError(f"The baseline model {config.baseline!r} is not a mapped score column "
                         f"({list(scored.scores)}).")
    if len(scored.scores) < 2:
        return {}
    groups, y, level = scored.subgroups, scored.y_true, config.ci
    boot = dict(ci=level, n_boot=config.n_boot, random_state=0)
    predictions = {s: v >= config.threshold_of(s, v) for s, v in scored.scores.items()}
    quantities = [RATE_TO_METRIC[r] for r in config.rate_metrics] + ["equalized_odds", "p_percent_score",
                                                                  "equal_opportunity_score"]
    out = {"rates": compare_models(y, predictions, groups, baseline=config.baseline, quantities=quantities,
                                   distance_measure=config.rate_distance, reduction=config.rate_reduction,
                                   reference=config.rate_reference, include_small=config.include_small,
                                   positive_outcome=config.mapping.positive_outcome, **boot),
           "aucs": compare_model_aucs(y, scored.scores, groups, baseline=config.baseline, ci=level)}
    probabilities = {s: v for s, v in scored.scores.items() if v.min() >= 0 and v.max() <= 1}
    if config.baseline in probabilities and len(probabilities) >= 2:
        out["calibration"] = compare_model_calibration(
            y, probabilities, groups, baseline=config.baseline, n_bins=int(config.cal_n_bins),
            strategy=config.cal_strategy, min_per_group=int(config.cal_min_per_group), **boot)
    return out


def _score_review(scored: ScoredData, score: str, config: ReviewConfig) -> ModelReview:
    values = scored.scores[score]
    groups, y = scored.subgroups, scored.y_true
    threshold = config.threshold_of(score, values)
    tc = threshold_counts(y, values, groups)
    review = _rate_review(tc.at(threshold), score, "score", threshold, config)
    own = dict(config.subgroup_thresholds).get(score)
    if own is not None:
        if not tc.disjoint:
            raise ValueError(f"Per-subgroup thresholds (given for {score!r}) need subgroups that do not overlap and "
                             "cover every row: intersected protected attributes, no identity columns.")
        review = dataclasses.replace(review, subgroup_thresholds=subgroup_threshold_effect(
            tc, threshold, dict(own), config.rate_metrics, distance_measure=config.rate_distance,
            reduction=config.rate_reduction, reference=config.rate_reference, include_small=config.include_small))
    table = bias_auc_table(y, values, groups, ci=config.ci, n_boot=config.n_boot, random_state=0)
    counts = note = None
    if values.min() < 0 or values.max() > 1:
        note = f"Not assessed: {score} ranges from {values.min():g} to {values.max():g}, so it is not a probability."
    else:
        counts = calibration_counts(y, values, groups, n_bins=int(config.cal_n_bins), strategy=config.cal_strategy)
    return with_aucs_and_calibration(review, table, counts, note or "", config)


def with_aucs_and_calibration(review: ModelReview, table: pd.DataFrame, counts, note: str,
                              config: ReviewConfig) -> ModelReview:
    """A score's review completed with its AUC table, bias AUC score and calibration, findings and verdicts.

    The one place both builders (rows in memory, :func:`build_review`; counts from an engine,
    ``build_review_from_counts``) turn an AUC table and calibration counts into the review's parts.

    Parameters
    ----------
    review : ModelReview
        The rate part (:func:`_rate_review`).
    table : DataFrame
        The per-subgroup AUC table (``bias_auc_table`` or ``AucCounts.table``).
    counts : CalibrationCounts or None
        None when the score is not a probability (`note` says why).
    note : str
    config : ReviewConfig

    Returns
    -------
    ModelReview
    """
    aucs = auc_conclusions(table, config.mapping, p=float(config.auc_p), overall_weight=float(config.auc_weight),
                           include_small=config.include_small, ci=config.ci, min_score=config.auc_min_score)
    bias, findings, verdicts = aucs.results["bias_auc"], list(aucs.findings), list(aucs.verdicts)
    calibration = reliability = None
    if counts is not None:
        cal = calibration_conclusions(counts, **calibration_options(config))
        calibration, reliability = cal.results["calibration"], counts.reliability_table(ci=config.ci)
        findings += cal.findings
        verdicts += cal.verdicts
    return dataclasses.replace(review, auc_table=table, bias_auc=bias, calibration=calibration,
                               reliability=reliability, calibration_note=note,
                               findings=tuple(findings) + review.findings, verdicts=tuple(verdicts) + review.verdicts)


def consistency_table(result) -> pd.DataFrame:
    """A :class:`ConsistencyResult` as a one-row table: ``value, zemel_consistency, std_error, n_neighbors,
    n_rows, n_sampled, n_excluded, features`` (the features joined by ', ')."""
    return pd.DataFrame([{"value": result.value, "zemel_consistency": result.zemel_consistency,
                          "std_error": result.std_error, "n_neighbors": result.n_neighbors, "n_rows": result.n_rows,
                          "n_sampled": result.n_sampled, "n_excluded": result.n_excluded,
                          "features": ", ".join(result.features)}])


def _consistency(sliced: pd.DataFrame, scored: ScoredData, config: ReviewConfig):
    """kNN consistency of the labels on the configured features (rows of the analysis), or None."""
    features = list(config.consistency_features)
    if not features:
        return None
    missing = [c for c in features if c not in sliced.columns]
    if missing:
        raise ValueError(f"The consistency features {missing} are not columns of the data.")
    try:
        return consistency(sliced[features].iloc[scored.rows], scored.y_true,
                           n_neighbors=int(config.consistency_neighbors),
                           sample_size=None if config.consistency_sample is None else int(config.consistency_sample),
                           random_state=0)
    except TypeError as exc:   # a feature that is not numeric: bad input, not a defect
        raise ValueError(str(exc)) from None


def with_classwise(review: ModelReview, config: ReviewConfig, n_classes: int, names: list, sizes,
                   class_counts: Callable) -> ModelReview:
    """`review` (of the predicted label column) with class-wise bias when the label has more than two classes.

    `names` and `sizes` are the subgroups' (the default pair of a difference: the two largest);
    `class_counts()` gives the ClassCounts, asked for only when there are more than two classes. The
    one place both review builders (rows, :func:`build_review`; counts, ``build_review_from_counts``)
    add class-wise bias.
    """
    if n_classes <= 2:
        return review
    pair = None
    if config.classwise_reduction in ("difference", "absolute_difference"):
        pair = list(config.classwise_subgroups)
        if not pair:   # the two largest subgroups, largest first (stable on ties), as the app's default
            order = np.argsort(-np.asarray(sizes), kind="stable")
            pair = [names[int(i)] for i in (order[0], order[min(1, len(order) - 1)])]
    classwise = classwise_conclusions(class_counts(), metric=config.classwise_metric,
                                      reduction=config.classwise_reduction, subgroups=pair,
                                      include_small=config.include_small, ci=config.ci, n_boot=config.n_boot)
    return dataclasses.replace(review, classwise=classwise.results["classwise"],
                               findings=review.findings + classwise.findings)


def _rate_review(counts, name: str, kind: str, threshold: Optional[float], config: ReviewConfig) -> ModelReview:
    boot = dict(ci=config.ci, n_boot=config.n_boot, random_state=0)
    kw = dict(reference=config.rate_reference, include_small=config.include_small, adjust=config.adjust, **boot)

    @lru_cache(maxsize=None)
    def disparity(metric: str, distance: str, reduction: str):
        """A reduced rate disparity (or equalized odds), computed once for the table and the conclusions."""
        args = kw | {"distance_measure": distance, "reduction": reduction}
        return counts.equalized_odds(**args) if metric == "equalized_odds" else counts.disparity(metric, **args)

    rates = {m: disparity(m, config.rate_distance, config.rate_reduction)
             for m in [RATE_TO_METRIC[r] for r in config.rate_metrics] + ["equalized_odds"]}
    # The Theil benefit reads the favourable outcome (§5.0); the Theil index has no distance.
    rates["theil_index"] = counts.favourable(config.mapping.positive_outcome).theil_index(
        reduction=config.rate_reduction, **kw)
    rate = rate_conclusions(counts, config.mapping, disparity=disparity, **rate_options(config))
    return ModelReview(name=name, kind=kind, threshold=threshold, performance=performance_table(counts, **boot),
                       rate_table=counts.table(ci=config.ci), rates=rates, p_percent=rate.results["p_percent"],
                       equal_opportunity=rate.results["equal_opportunity"], findings=rate.findings,
                       verdicts=rate.verdicts)


def rate_options(config: ReviewConfig) -> dict:
    """The keyword options of :func:`rate_conclusions` that `config` sets (seed 0)."""
    return dict(rate_metrics=config.rate_metrics, distance_measure=config.rate_distance,
                max_difference=config.rate_max_difference, reference=config.rate_reference,
                include_small=config.include_small, ci=config.ci, n_boot=config.n_boot, adjust=config.adjust)


def calibration_options(config: ReviewConfig) -> dict:
    """The keyword options of :func:`calibration_conclusions` that `config` sets (seed 0)."""
    return dict(threshold=config.cal_bound, min_per_group=int(config.cal_min_per_group),
                distance_measure=config.cal_distance, reduction=config.cal_reduction, reference=config.cal_reference,
                include_small=config.include_small, ci=config.ci, n_boot=config.n_boot, adjust=config.adjust)


def dataset_options(config: ReviewConfig) -> dict:
    """The keyword options of :func:`dataset_conclusions` that `config` sets (seed 0)."""
    return dict(distance_measure=config.dataset_distance, reduction=config.dataset_reduction,
                reference=config.dataset_reference, include_small=config.include_small,
                max_difference=config.dataset_max_difference, ci=config.ci, n_boot=config.n_boot,
                adjust=config.adjust)
