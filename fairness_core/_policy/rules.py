"""Policy rules as plain data, and their verdicts: pass, fail, inconclusive or not assessable.

A :class:`Rule` bounds one metric in the units of its distance measure ("the FPR ratio disparity
must be at most 1.25"); :func:`evaluate` assesses a value, with its interval when there is one,
against the rule and says what it found in a plain-language sentence. Rules are frozen and
serialise to JSON (:func:`rules_to_json`, :func:`rules_from_json`), so a later command line can
save them and gate a release on them. Nothing here computes a metric.

References
----------
- EEOC et al., Uniform Guidelines on Employee Selection Procedures, 29 CFR 1607.4(D): the
  four-fifths rule (a selection rate below 4/5 of the highest group's is evidence of adverse
  impact), the source of the p% score >= 0.8 default.
- Saleiro et al. (2018), "Aequitas: A Bias and Fairness Audit Toolkit", arXiv:1811.05577: a
  disparity passes within [tau, 1 / tau], tau = 0.8 by default, i.e. [0.8, 1.25].
- ExFairness (ExFairness.Metrics.Calibration): calibration disparity threshold 0.1 by default.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Iterable, Literal, Optional

import numpy as np

from .. import _registry as registry

Direction = Literal["max", "min"]
Status = Literal["pass", "fail", "inconclusive", "not_assessable"]

STATUSES = ("pass", "fail", "inconclusive", "not_assessable")
DIRECTIONS = ("max", "min")
# The metrics a rule may bound, and which kind each is, are the registry's (``fairness_core._registry``):
# a score (higher is better, 1 is parity) is bounded from below; a distance (a disparity in the units of 'diff',
# |a - b| in [0, 1], or 'ratio', >= 1) and the Theil index from above. ``METRICS``, ``SCORE_METRICS`` and
# ``DISTANCE_METRICS`` are read from it at each use (module ``__getattr__`` below).
FIELDS = ("name", "metric", "distance_measure", "bound", "direction", "label")
REQUIRED_FIELDS = ("metric", "bound")
# Values within this relative distance of the bound count as on it: 0.4 - 0.3 is stored as
# 0.10000000000000003 and meets a bound of 0.1.
BOUND_RTOL = 1e-9

_UNITS = {"diff": "difference", "ratio": "ratio"}
_CALIBRATION_UNITS = {"diff": "excess ℓ2 ECE", "ratio": "ratio of ECEs"}

FIELD_TYPE_MESSAGE = "The '{field}' field of Rule must be {expected}. Got {got!r} instead."
FIELD_OPTION_MESSAGE = "The '{field}' field of Rule must be one of {allowed}. Got {got!r} instead."
NAME_MESSAGE = (
    "The 'name' field of Rule must be a short id: 1 to 64 letters, digits, '_', '-' or '.', starting "
    "with a letter or digit. Got {got!r} instead."
)
DISTANCE_REQUIRED_MESSAGE = (
    "The 'distance_measure' field of a Rule on {metric!r} must be 'diff' or 'ratio': its bound is in "
    "the units of that distance. Got {got!r} instead."
)
DISTANCE_NONE_MESSAGE = (
    "The 'distance_measure' field of a Rule on {metric!r} must be None: this metric has no distance "
    "measure. Got {got!r} instead."
)
DIRECTION_MESSAGE = (
    "The 'direction' field of a Rule on {metric!r} must be {expected!r}: {why}. Got {got!r} instead."
)
BOUND_RANGE_MESSAGE = (
    "The 'bound' field of a Rule on {metric!r} with distance_measure={distance!r} must be {expected}. "
    "Got {got!r} instead."
)
RATIO_BOUND_MESSAGE = (
    "The 'bound' field of a Rule on {metric!r} with distance_measure='ratio' must be a finite number "
    ">= 1. Got {got!r} instead. Tip: ratio disparities are inverted to be >= 1 (1 is parity), so the "
    "band [0.8, 1.25] is the single bound 1.25; Rule.ratio_within({metric!r}, low={got!r}) converts a "
    "lower end."
)
RATIO_WITHIN_MESSAGE = (
    "Rule.ratio_within needs a band [low, high] with 0 < low <= 1 <= high and low * high == 1: ratio "
    "disparities are inverted to be >= 1, so they cannot tell the two sides of the band apart. Got "
    "low={low!r}, high={high!r}. Tip: give one end only (the other is its reciprocal), or write the "
    "stricter single bound yourself: Rule(metric=..., distance_measure='ratio', bound=min(1 / low, high))."
)
DICT_TYPE_MESSAGE = "Rule.from_dict needs a dict (a JSON object). Got {got} instead."
UNKNOWN_FIELDS_MESSAGE = "Rule.from_dict got the unknown field(s) {got}. The fields of a Rule are {allowed}."
MISSING_FIELDS_MESSAGE = "Rule.from_dict needs the field(s) {missing}. Got only {got}."
RULES_TYPE_MESSAGE = "The 'rules' parameter of {func} must hold Rule objects. Got {got} at index {index}."
DUPLICATE_NAME_MESSAGE = (
    "Rule names must be unique, so that each verdict can be told apart. Got {names} more than once."
)
RULE_TYPE_MESSAGE = "The 'rule' parameter of {func} must be a Rule. Got {got} instead."

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}")


def _is_real(x: Any) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, (bool, np.bool_))


def _fmt(x: float, avoid: Optional[float] = None) -> str:
    """3 significant digits, more when that would print `x` as the (different) bound `avoid`."""
    if math.isinf(x):
        return "∞" if x > 0 else "-∞"
    for digits in range(3, 10):
        text = f"{x:.{digits}g}"
        if avoid is None or math.isclose(x, avoid, rel_tol=BOUND_RTOL) or text != f"{avoid:.{digits}g}":
            return text
    return f"{x:.17g}"


def _capital(text: str) -> str:
    return text if text.startswith("p%") else text[:1].upper() + text[1:]


def __getattr__(name: str) -> tuple:
    """``METRICS`` (every metric a rule may bound), ``SCORE_METRICS``, ``DISTANCE_METRICS``: from the registry."""
    if name == "METRICS":
        return registry.names(rule=True)
    if name == "SCORE_METRICS":
        return registry.names(rule=True, kind="score")
    if name == "DISTANCE_METRICS":
        return registry.names(rule=True, kind="distance")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _subject(metric: str, distance: Optional[str]) -> str:
    subject = registry.spec(metric).subject
    if distance is None:
        return subject
    units = _CALIBRATION_UNITS if metric == "calibration_disparity" else _UNITS
    return f"{subject} ({units[distance]})"


def _natural_direction(metric: str) -> str:
    return "min" if registry.spec(metric).kind == "score" else "max"


@dataclass(frozen=True, kw_only=True)
class Rule:
    """A policy rule: one metric, bounded in the units of its distance measure.

    A rule is plain data (frozen, hashable, comparable, JSON-serialisable with :meth:`to_dict`
    and :func:`rules_to_json`). Its verdict on a value comes from :func:`evaluate`.

    Attributes
    ----------
    metric : str
        One of ``METRICS``: ``'p_percent_score'``, ``'equal_opportunity_score'``,
        ``'bias_auc_score'`` (scores, higher is better, 1 is parity); a rate disparity of
        :func:`rate_disparity` (``'statistical_parity'``, ``'true_positive_rate'``,
        ``'false_positive_rate'``, ``'false_negative_rate'``, ``'false_omission_rate'``,
        ``'false_discovery_rate'``, ``'error_rate'``), ``'equalized_odds'``,
        ``'calibration_disparity'``, ``'dataset_statistical_parity'`` (disparities in the units
        of their distance measure, lower is better); ``'theil_index'`` (lower is better, 0 is
        parity, no distance measure).
    distance_measure : {'diff', 'ratio'} or None, default=None
        The units of `bound`. Required ('diff' or 'ratio') for the disparities; None for the
        scores and the Theil index, which have no distance measure.
    bound : float
        The limit. ``'diff'``: in [0, 1] (a difference of rates, ECEs or base rates).
        ``'ratio'``: a finite number >= 1, since ratios here are inverted to be >= 1 (1 is
        parity), so "within [0.8, 1.25]" is the single bound 1.25 (see :meth:`ratio_within`).
        Scores: in [0, 1]. Theil index: a finite number >= 0.
    direction : {'max', 'min'}, default: 'min' for scores, 'max' otherwise
        ``'max'``: the value must be <= bound; ``'min'``: the value must be >= bound. Only the
        direction in which the metric improves is accepted (a disparity is bounded from above, a
        score from below), so a rule can never ask for more disparity.
    name : str, default: built from the other fields
        A short id (1-64 letters, digits, ``_``, ``-``, ``.``), unique within a rule list; the
        key of the rule's verdict in summaries and saved files.
    label : str, default: built from the other fields
        Plain-language text for the UI, e.g. ``"Four-fifths rule: p% score >= 0.8"``. The text
        before its first ``": "`` (here "Four-fifths rule") opens the verdict's sentence.

    Raises
    ------
    ValueError
        When a field is invalid; the message names the field (constants ``FIELD_TYPE_MESSAGE``,
        ``FIELD_OPTION_MESSAGE``, ``NAME_MESSAGE``, ``DISTANCE_REQUIRED_MESSAGE``,
        ``DISTANCE_NONE_MESSAGE``, ``DIRECTION_MESSAGE``, ``BOUND_RANGE_MESSAGE``,
        ``RATIO_BOUND_MESSAGE``).

    See Also
    --------
    DEFAULT_RULES : the rules the dashboard starts with.
    evaluate, evaluate_result : a rule's verdict on a value or a result object.

    Notes
    -----
    A rule does not fix the reduction or reference of the metric it bounds: "the FPR ratio is
    within [0.8, 1.25]" means every subgroup only when the value assessed is the maximum over
    subgroups (``reduction="max"``). There is no default bound for the bias AUC score; a user
    who wants one adds it, e.g. ``Rule(metric="bias_auc_score", bound=0.8)``.

    Examples
    --------
    A user bound on a difference:

    >>> rule = Rule(metric="false_negative_rate", distance_measure="diff", bound=0.05, direction="max")
    >>> rule.name, rule.label
    ('false_negative_rate_diff_max_0.05', 'False negative rate disparity (difference) <= 0.05')
    >>> Rule.from_dict(rule.to_dict()) == rule
    True
    """

    name: str = ""
    metric: str
    distance_measure: Optional[str] = None
    bound: float
    direction: Optional[Direction] = None
    label: str = ""

    def __post_init__(self) -> None:
        metric = self.metric
        allowed = registry.names(rule=True)
        if not isinstance(metric, str) or metric not in allowed:
            raise ValueError(FIELD_OPTION_MESSAGE.format(field="metric", allowed=list(allowed), got=metric))
        kind = registry.spec(metric).kind
        distance = self.distance_measure
        if kind == "distance":
            if not isinstance(distance, str) or distance not in ("diff", "ratio"):
                raise ValueError(DISTANCE_REQUIRED_MESSAGE.format(metric=metric, got=distance))
        elif distance is not None:
            raise ValueError(DISTANCE_NONE_MESSAGE.format(metric=metric, got=distance))
        natural = _natural_direction(metric)
        direction = natural if self.direction is None else self.direction
        if not isinstance(direction, str) or direction not in DIRECTIONS:
            raise ValueError(FIELD_OPTION_MESSAGE.format(field="direction", allowed=list(DIRECTIONS),
                                                         got=direction))
        if direction != natural:
            why = ("a score is higher the closer the groups are (1 is parity), so it is bounded from below"
                   if natural == "min" else "a disparity is lower the closer the groups are, so it is bounded "
                   "from above")
            raise ValueError(DIRECTION_MESSAGE.format(metric=metric, expected=natural, why=why, got=direction))
        given = self.bound
        if not _is_real(given) or not math.isfinite(float(given)):
            raise ValueError(FIELD_TYPE_MESSAGE.format(field="bound", expected="a finite number", got=given))
        bound = float(given)
        if distance == "ratio":
            if bound < 1.0:
                raise ValueError(RATIO_BOUND_MESSAGE.format(metric=metric, got=given))
        elif kind == "index":
            if bound < 0.0:
                raise ValueError(BOUND_RANGE_MESSAGE.format(metric=metric, distance=distance,
                                                            expected="a finite number >= 0", got=given))
        elif not 0.0 <= bound <= 1.0:
            raise ValueError(BOUND_RANGE_MESSAGE.format(metric=metric, distance=distance,
                                                        expected="in [0, 1]", got=given))
        name = self.name
        if not isinstance(name, str):
            raise ValueError(FIELD_TYPE_MESSAGE.format(field="name", expected="a str", got=name))
        if name == "":
            name = "_".join(p for p in (metric, distance, direction, f"{bound:g}") if p)
        if not _NAME.fullmatch(name):
            raise ValueError(NAME_MESSAGE.format(got=name))
        label = self.label
        if not isinstance(label, str):
            raise ValueError(FIELD_TYPE_MESSAGE.format(field="label", expected="a str", got=label))
        if label.strip() == "":
            label = f"{_capital(_subject(metric, distance))} {'<=' if direction == 'max' else '>='} {bound:g}"
        object.__setattr__(self, "bound", bound)
        object.__setattr__(self, "direction", direction)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "label", label)

    @staticmethod
    def metric_specs() -> tuple:
        """Every registered metric: the metric registry's rows (``MetricSpec``), the one home of their names.

        Each row gives a metric's function, inputs, interval, weight and engine support, direction, kind,
        default rule, plain name, dashboard label and definition anchor; the metrics a rule may bound have
        ``rule=True``. Read at each call.

        Returns
        -------
        tuple of MetricSpec

        Examples
        --------
        >>> [s.name for s in Rule.metric_specs() if s.rule and s.kind == "score"]
        ['p_percent_score', 'equal_opportunity_score', 'bias_auc_score']
        """
        return registry.specs()

    @classmethod
    def ratio_within(cls, metric: str, low: Optional[float] = None, high: Optional[float] = None, *,
                     name: str = "", label: str = "") -> "Rule":
        """A rule that a ratio disparity lies within the band [low, high] (default [0.8, 1.25]).

        Ratios here are inverted to be >= 1 (max(a, b) / min(a, b)), so a band symmetric on the
        ratio scale, low = 1 / high, is the single bound ``high`` on the ratio disparity. An
        asymmetric band cannot be expressed (the inverted ratio does not say which side a
        subgroup is on) and is refused rather than silently loosened or tightened.

        Parameters
        ----------
        metric : str
            A metric with a distance measure (a rate disparity, ``'equalized_odds'``,
            ``'calibration_disparity'``, ``'dataset_statistical_parity'``).
        low, high : float, optional
            The band's ends, 0 < low <= 1 <= high with low * high == 1 (to a relative 1e-9).
            Give one and the other is its reciprocal; give neither for [0.8, 1.25].
        name, label : str, optional
            As in :class:`Rule`; the label defaults to ``"<Metric> ratio within [low, high]"``.

        Returns
        -------
        Rule
            With ``distance_measure='ratio'``, ``direction='max'``, ``bound=high``.

        Raises
        ------
        ValueError
            If the band is not of that form (``RATIO_WITHIN_MESSAGE``) or the metric has no
            distance measure.

        References
        ----------
        Aequitas (Saleiro et al. 2018, "Aequitas: A Bias and Fairness Audit Toolkit",
        arXiv:1811.05577): a group's disparity passes when it lies within [tau, 1 / tau], with
        tau = 0.8 by default.

        Examples
        --------
        >>> Rule.ratio_within("false_positive_rate", low=0.8).bound
        1.25
        """
        if low is None and high is None:
            low, high = 0.8, 1.25
        for end in (low, high):
            if end is not None and (not _is_real(end) or not math.isfinite(float(end)) or float(end) <= 0):
                raise ValueError(RATIO_WITHIN_MESSAGE.format(low=low, high=high))
        if high is None:
            high = 1.0 / float(low)
        if low is None:
            low = 1.0 / float(high)
        low, high = float(low), float(high)
        if not (low <= 1.0 <= high and math.isclose(low * high, 1.0, rel_tol=1e-9)):
            raise ValueError(RATIO_WITHIN_MESSAGE.format(low=low, high=high))
        if not label and metric in registry.names(rule=True):
            label = f"{_capital(registry.spec(metric).subject)} ratio within [{low:.3g}, {high:.3g}]"
        return cls(name=name, metric=metric, distance_measure="ratio", bound=high, direction="max", label=label)

    def to_dict(self) -> dict:
        """The rule as a dict of JSON types (keys ``FIELDS``); :meth:`from_dict` reads it back.

        Examples
        --------
        >>> d = Rule(name="eo", metric="equal_opportunity_score", bound=0.8).to_dict()
        >>> d["name"], d["distance_measure"], d["bound"], d["direction"]
        ('eo', None, 0.8, 'min')
        """
        return {f: getattr(self, f) for f in FIELDS}

    @classmethod
    def from_dict(cls, data: dict) -> "Rule":
        """A rule from a dict such as :meth:`to_dict` writes, validated field by field.

        Parameters
        ----------
        data : dict
            Keys among ``FIELDS``; ``metric`` and ``bound`` are required, the others default as
            in :class:`Rule`.

        Returns
        -------
        Rule

        Raises
        ------
        ValueError
            If `data` is not a dict (``DICT_TYPE_MESSAGE``), has unknown keys
            (``UNKNOWN_FIELDS_MESSAGE``) or lacks a required one (``MISSING_FIELDS_MESSAGE``), or
            a field is invalid (see :class:`Rule`).
        """
        if not isinstance(data, dict):
            raise ValueError(DICT_TYPE_MESSAGE.format(got=type(data).__name__))
        unknown = [k for k in data if k not in FIELDS]
        if unknown:
            raise ValueError(UNKNOWN_FIELDS_MESSAGE.format(got=unknown, allowed=list(FIELDS)))
        missing = [k for k in REQUIRED_FIELDS if k not in data]
        if missing:
            raise ValueError(MISSING_FIELDS_MESSAGE.format(missing=missing, got=list(data)))
        return cls(**data)


def _check_rules(rules: Iterable[Any], func: str) -> list[Rule]:
    rules = list(rules)
    for index, rule in enumerate(rules):
        if not isinstance(rule, Rule):
            raise TypeError(RULES_TYPE_MESSAGE.format(func=func, got=type(rule).__name__, index=index))
    _check_unique([r.name for r in rules])
    return rules


def _check_unique(names: list[str]) -> None:
    seen, dupes = set(), []
    for n in names:
        if n in seen and n not in dupes:
            dupes.append(n)
        seen.add(n)
    if dupes:
        raise ValueError(DUPLICATE_NAME_MESSAGE.format(names=", ".join(map(repr, dupes))))
