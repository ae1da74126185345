"""ReviewConfig: what a review computes (metrics, thresholds, intervals, rules), checked against the schema,
as JSON; default thresholds; the option sets the review builders pass to the metrics.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from .._data.columns import ColumnMapping
from .._disparity.compare import NamedReference, named_reference
from .._subgroups.slices import Condition, Slice
from .config_schema import MAX_CONFIG_BYTES, problems


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
        identity columns, the subgroup options, and optional words for the label's values
        (``label_words``, written as ``{"yes": "denied", "no": "approved"}``; words only).
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
    gate_rules : tuple of str
        What decides the exit status of the command line's gate: rules (``Rule.name`` or ``Rule.metric``),
        ``'changes'`` (every change from the baseline) or ``'changes:<quantity>'`` (e.g. ``'changes:bpsn_auc'``);
        empty (the default): every rule of the models and every change, never the rules about the labels unless
        named (or `gate_labels`).
    gate_strict : bool, default=False
        Whether an inconclusive or not assessable gating verdict fails the gate too.
    gate_labels : bool, default=False
        With no `gate_rules`: the rules about the labels gate too (by default they are reported only).
    max_worsening : float >= 0, default=0.01
        With a baseline: the largest worsening of a candidate score from the baseline that passes, in the units of
        a difference of rates: as given for a rate disparity (``rate_distance`` 'diff'), an AUC or an ECE, twice
        it for the p% and equal opportunity scores and ratio disparities (ratios of rates;
        ``_review.change_levels.change_tolerance``); see ``Review.changes``.
    suggest_measure : str or None, default=None
        With a measure of ``suggest.MEASURES`` (e.g. ``'balanced_accuracy'``, ``'recall'``): each score's
        review holds :func:`suggest_threshold` at its threshold (where the rate rules pass with their interval
        across thresholds, each threshold's cost, the suggested threshold). None: no suggestion.
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
    gate_rules: tuple = ()
    gate_strict: bool = False
    gate_labels: bool = False
    max_worsening: float = 0.01
    suggest_measure: Optional[str] = None
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
        for name in ("classwise_subgroups", "consistency_features", "gate_rules"):
            if not isinstance(getattr(self, name), str):   # a lone string is refused by the schema, not split
                object.__setattr__(self, name, tuple(str(v) for v in getattr(self, name)))
        if isinstance(self.rate_metrics, (list, tuple)):   # rate_disparity's name of the selection rate, accepted too
            object.__setattr__(self, "rate_metrics", tuple(
                "selection_rate" if m == "statistical_parity" else m for m in self.rate_metrics))
        found = problems(self.to_dict()) or _role_problems(self)   # every type and bound, then the columns' roles
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
                "mapping": {k: dict(v) if k == "label_words" else list(v) if isinstance(v, tuple) else v
                            for k, v in dataclasses.asdict(self.mapping).items()},
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


def _role_problems(config: "ReviewConfig") -> list[str]:
    """A column of the mapping in two roles (a restored weight column that is the label, say), and a baseline that
    is not one of the scores: each would otherwise be dropped, or skipped, without a word."""
    m = config.mapping
    roles = [("the label", m.label), *(("a score", s) for s in m.scores), ("the predicted label", m.predicted_label),
             *(("a protected attribute", c) for c in m.protected), *(("an identity column", c) for c in m.indicators),
             ("the weight", m.weight), ("the time", m.time)]
    found, seen = [], {}
    for role, column in roles:
        if column is None:
            continue
        if column in seen and seen[column] != role:
            field = "mapping.weight" if "the weight" in (role, seen[column]) else "mapping"
            found.append(f"{field}: column {column!r} is both {seen[column]} and {role} (give each column one role)")
        seen.setdefault(column, role)
    if config.baseline is not None and config.baseline not in m.scores:
        found.append(f"options.baseline: {config.baseline!r} is not one of the mapping's scores "
                     f"({', '.join(map(repr, m.scores)) or 'none'})")
    return found


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
        When `text` is not JSON, is nested too deeply for the parser (e.g. 100,000 brackets), or is longer
        than a configuration can be (``MAX_CONFIG_BYTES`` characters), which is refused before parsing.
    """
    if len(text) > MAX_CONFIG_BYTES:   # characters: at least as many bytes in UTF-8
        raise ValueError(CONFIG_MESSAGE.format(
            problem=f"the JSON is longer than a configuration can be ({len(text):,} characters; at most "
                    f"{MAX_CONFIG_BYTES:,})"))
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
