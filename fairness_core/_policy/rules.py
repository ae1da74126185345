"""Policy rules as plain data, and their verdicts: pass, fail, inconclusive or not assessable (issue 7, item 5).

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
- Seed 001 (ExFairness.Metrics.Calibration): calibration disparity threshold 0.1 by default.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Literal, Optional

import numpy as np
import pandas as pd

from .._data.checks import check_option

Direction = Literal["max", "min"]
Status = Literal["pass", "fail", "inconclusive", "not_assessable"]

STATUSES = ("pass", "fail", "inconclusive", "not_assessable")
DIRECTIONS = ("max", "min")
RATE_METRICS = ("statistical_parity", "true_positive_rate", "false_positive_rate", "false_negative_rate",
                "false_omission_rate", "false_discovery_rate", "error_rate")
# Higher is better, 1 is parity, no distance measure: bounded from below.
SCORE_METRICS = ("p_percent_score", "equal_opportunity_score", "bias_auc_score")
# A disparity in the units of 'diff' (|a - b|, in [0, 1]) or 'ratio' (>= 1): bounded from above.
DISTANCE_METRICS = RATE_METRICS + ("equalized_odds", "calibration_disparity", "dataset_statistical_parity")
METRICS = SCORE_METRICS[:2] + RATE_METRICS + ("equalized_odds", "theil_index", "calibration_disparity",
                                              "bias_auc_score", "dataset_statistical_parity")
FIELDS = ("name", "metric", "distance_measure", "bound", "direction", "label")
REQUIRED_FIELDS = ("metric", "bound")
# Values within this relative distance of the bound count as on it: 0.4 - 0.3 is stored as
# 0.10000000000000003 and meets a bound of 0.1.
BOUND_RTOL = 1e-9

_SUBJECTS = {
    "p_percent_score": "p% score",
    "equal_opportunity_score": "equal opportunity score",
    "statistical_parity": "selection rate disparity",
    "true_positive_rate": "true positive rate disparity",
    "false_positive_rate": "false positive rate disparity",
    "false_negative_rate": "false negative rate disparity",
    "false_omission_rate": "false omission rate disparity",
    "false_discovery_rate": "false discovery rate disparity",
    "error_rate": "error rate disparity",
    "equalized_odds": "equalized odds disparity",
    "theil_index": "Theil index",
    "calibration_disparity": "calibration disparity",
    "bias_auc_score": "bias AUC score",
    "dataset_statistical_parity": "base rate disparity of the labels",
}
_UNITS = {"diff": "difference", "ratio": "ratio"}
_CALIBRATION_UNITS = {"diff": "difference in ECE", "ratio": "ratio of ECEs"}

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
JSON_MESSAGE = (
    "rules_from_json could not read the text as JSON: {error}. Tip: the text should be a JSON list "
    "of rule objects, as written by rules_to_json."
)
JSON_LIST_MESSAGE = "rules_from_json needs a JSON list of rule objects. Got a JSON {got} instead."
RULE_ITEM_MESSAGE = "rules[{index}] is invalid: {error}"
RULES_TYPE_MESSAGE = "The 'rules' parameter of {func} must hold Rule objects. Got {got} at index {index}."
DUPLICATE_NAME_MESSAGE = (
    "Rule names must be unique, so that each verdict can be told apart. Got {names} more than once."
)
RULE_TYPE_MESSAGE = "The 'rule' parameter of {func} must be a Rule. Got {got} instead."
VALUE_TYPE_MESSAGE = (
    "The '{param}' parameter of evaluate must be a real number (NaN when undefined). Got {got!r} instead."
)
INTERVAL_ORDER_MESSAGE = "evaluate needs ci_low <= ci_high. Got ci_low={low!r} and ci_high={high!r} instead."
LEVEL_MESSAGE = (
    "The 'level' parameter of {func} must be None or a confidence level strictly between 0 and 1, "
    "such as 0.95. Got {got!r} instead."
)
UNITS_MESSAGE = (
    "Rule {name!r} bounds the {metric!r} value in the units of distance_measure={expected!r} "
    "(bound {bound:g}), but the value given has distance_measure={got!r}. A ratio is never compared "
    "with a difference bound, nor a difference with a ratio bound. Tip: compute the metric with "
    "distance_measure={expected!r}, or use a rule written for {got!r}."
)
RESULT_VALUE_MESSAGE = "evaluate_result needs a result object with a 'value' attribute. Got {got} instead."
VERDICT_TYPE_MESSAGE = "summarize_verdicts needs Verdict objects. Got {got} at index {index}."

TEXT_TYPE_MESSAGE = "The 'text' parameter of rules_from_json must be a str. Got {got} instead."

UNDEFINED_NOTE = "no value could be computed"
NO_INTERVAL_NOTE = "no interval was available, so the verdict rests on the point estimate alone"
INFINITE_REASON = "one of the two compared values is 0"
INFINITE_RATIO_NOTE = f"the ratio is infinite because {INFINITE_REASON}"

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


def _subject(metric: str, distance: Optional[str]) -> str:
    subject = _SUBJECTS[metric]
    if distance is None:
        return subject
    units = _CALIBRATION_UNITS if metric == "calibration_disparity" else _UNITS
    return f"{subject} ({units[distance]})"


def _natural_direction(metric: str) -> str:
    return "min" if metric in SCORE_METRICS else "max"


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
        if not isinstance(metric, str) or metric not in METRICS:
            raise ValueError(FIELD_OPTION_MESSAGE.format(field="metric", allowed=list(METRICS), got=metric))
        distance = self.distance_measure
        if metric in DISTANCE_METRICS:
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
        elif metric == "theil_index":
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
        if not label and metric in _SUBJECTS:
            label = f"{_capital(_SUBJECTS[metric])} ratio within [{low:.3g}, {high:.3g}]"
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


def rules_to_json(rules: Iterable[Rule]) -> str:
    """Serialise rules to a JSON list of rule objects (one per rule, keys ``FIELDS``).

    Parameters
    ----------
    rules : iterable of Rule
        Names must be unique.

    Returns
    -------
    str
        Indented JSON; :func:`rules_from_json` reads it back to equal rules.

    Raises
    ------
    TypeError
        If an item is not a Rule (``RULES_TYPE_MESSAGE``).
    ValueError
        If two rules share a name (``DUPLICATE_NAME_MESSAGE``).

    Examples
    --------
    >>> rules_from_json(rules_to_json(DEFAULT_RULES)) == list(DEFAULT_RULES)
    True
    """
    checked = _check_rules(rules, "rules_to_json")
    return json.dumps([r.to_dict() for r in checked], indent=2, ensure_ascii=False)


def rules_from_json(text: str) -> list[Rule]:
    """Read rules from JSON text as :func:`rules_to_json` writes it, validating every field.

    Parameters
    ----------
    text : str
        A JSON list of objects, each with the fields of :class:`Rule` (``metric`` and ``bound``
        required).

    Returns
    -------
    list of Rule

    Raises
    ------
    ValueError
        If the text is not JSON (``JSON_MESSAGE``) or not a list (``JSON_LIST_MESSAGE``); if a
        rule is invalid, ``RULE_ITEM_MESSAGE`` gives its index and the field's own message; if two
        rules share a name (``DUPLICATE_NAME_MESSAGE``).

    Examples
    --------
    >>> rules_from_json('[{"metric": "p_percent_score", "bound": 0.8}]')[0].direction
    'min'
    """
    if not isinstance(text, (str, bytes, bytearray)):
        raise TypeError(TEXT_TYPE_MESSAGE.format(got=type(text).__name__))
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(JSON_MESSAGE.format(error=error)) from None
    if not isinstance(data, list):
        kind = {dict: "object", str: "string", bool: "boolean", type(None): "null"}.get(type(data), "number")
        raise ValueError(JSON_LIST_MESSAGE.format(got=kind))
    rules = []
    for index, item in enumerate(data):
        try:
            rules.append(Rule.from_dict(item))
        except (ValueError, TypeError) as error:
            raise ValueError(RULE_ITEM_MESSAGE.format(index=index, error=error)) from None
    _check_unique([r.name for r in rules])
    return rules


DEFAULT_RULES: tuple[Rule, ...] = (
    Rule(name="four_fifths", metric="p_percent_score", bound=0.8, direction="min",
         label="Four-fifths rule: p% score >= 0.8"),
    Rule(name="equal_opportunity", metric="equal_opportunity_score", bound=0.8, direction="min",
         label="Four-fifths rule on true positive rates: equal opportunity score >= 0.8"),
    Rule.ratio_within("statistical_parity", low=0.8, high=1.25, name="selection_rate_ratio",
                      label="Selection rate band: ratio within [0.8, 1.25]"),
    Rule.ratio_within("true_positive_rate", low=0.8, high=1.25, name="true_positive_rate_ratio",
                      label="True positive rate band: ratio within [0.8, 1.25]"),
    Rule.ratio_within("false_positive_rate", low=0.8, high=1.25, name="false_positive_rate_ratio",
                      label="False positive rate band: ratio within [0.8, 1.25]"),
    Rule(name="calibration_diff", metric="calibration_disparity", distance_measure="diff", bound=0.1,
         direction="max", label="Calibration: difference in ECE <= 0.1"),
)
"""The rules the dashboard starts with (a tuple; ``list(DEFAULT_RULES)`` to edit).

1. ``four_fifths``: p% score >= 0.8, the four-fifths rule of the EEOC Uniform Guidelines on
   Employee Selection Procedures, 29 CFR 1607.4(D).
2. ``equal_opportunity``: equal opportunity score >= 0.8, the same rule on true positive rates.
3. ``selection_rate_ratio``, ``true_positive_rate_ratio``, ``false_positive_rate_ratio``: the ratio
   disparity of the selection rate, TPR and FPR within [0.8, 1.25], i.e. <= 1.25 (Aequitas's
   default band, Saleiro et al. 2018, arXiv:1811.05577).
4. ``calibration_diff``: calibration disparity (difference in ECE) <= 0.1, the default threshold
   of seed 001 (ExFairness.Metrics.Calibration).

There is no default rule on the bias AUC score: no source sets a level; add one with
``Rule(metric="bias_auc_score", bound=...)``.
"""


@dataclass(frozen=True)
class Verdict:
    """A rule's verdict on one value, with the sentence that explains it.

    Attributes
    ----------
    rule : Rule
    value : float
        The value assessed (NaN when undefined, inf for an infinite ratio).
    ci_low, ci_high : float
        Its interval; NaN when none was available.
    status : {'pass', 'fail', 'inconclusive', 'not_assessable'}
        'inconclusive': the interval straddles the bound. 'not_assessable': the value is NaN (every
        comparison was left out as small or is undefined).
    sentence : str
        A plain-language sentence for reports and the UI, e.g. "Four-fifths rule: p% score 0.72
        (95 % interval 0.65–0.78) is below 0.8 across the whole interval: fails."
    level : float or None
        Confidence level of the interval, when known.
    note : str
        Why the verdict is qualified: no interval, an infinite ratio, why the value is undefined;
        empty otherwise.
    left_out : tuple of str
        What the value leaves out and why, one text per comparison, e.g. ``"afam=yes: 20 actual
        positives < minimum 30"`` (small comparisons, unless they were included, and undefined
        ones); the sentence names them too.
    """

    rule: Rule
    value: float
    ci_low: float
    ci_high: float
    status: Status
    sentence: str
    level: Optional[float] = None
    note: str = field(default="")
    left_out: tuple = ()


def _real(x: Any, param: str) -> float:
    if x is None and param != "value":
        return float("nan")
    if not _is_real(x):
        raise TypeError(VALUE_TYPE_MESSAGE.format(param=param, got=x))
    return float(x)


def _check_level(level: Any, func: str) -> Optional[float]:
    if level is None:
        return None
    if not _is_real(level) or not 0.0 < float(level) < 1.0:
        raise ValueError(LEVEL_MESSAGE.format(func=func, got=level))
    return float(level)


def _at_most(x: float, bound: float) -> bool:
    return x <= bound or math.isclose(x, bound, rel_tol=BOUND_RTOL)


def _at_least(x: float, bound: float) -> bool:
    return x >= bound or math.isclose(x, bound, rel_tol=BOUND_RTOL)


def evaluate(rule: Rule, value: float, *, ci_low: Optional[float] = None, ci_high: Optional[float] = None,
             distance_measure: Optional[str] = None, level: Optional[float] = None, note: str = "",
             left_out: tuple = ()) -> Verdict:
    """Assess a value (and its interval) against a rule: pass, fail, inconclusive or not assessable.

    With an interval [ci_low, ci_high], for ``direction='max'`` (value <= bound):
    pass if ci_high <= bound, fail if ci_low > bound, otherwise inconclusive (the interval
    straddles the bound); for ``'min'`` (value >= bound): pass if ci_low >= bound, fail if
    ci_high < bound, otherwise inconclusive. The point value does not decide when there is an
    interval. Without one (either end None or NaN), the point value decides and the verdict says
    that no interval was available. A NaN value is 'not_assessable'. An infinite ratio (exactly one
    compared value is 0) fails a 'max' rule when there is no interval, and the sentence says why;
    with an interval, the interval decides as above. A value within a relative 1e-9 of the bound
    (``BOUND_RTOL``) counts as on it, so floating-point rounding never flips a verdict.

    Parameters
    ----------
    rule : Rule
    value : float
        The metric's value, in the units of ``rule.distance_measure``; NaN when undefined.
    ci_low, ci_high : float, optional
        The interval of `value` (inf is a valid end for a ratio).
    distance_measure : {'diff', 'ratio'} or None, optional
        The units `value` is in, when known. If given, it must equal ``rule.distance_measure``:
        a ratio is never compared with a difference bound.
    level : float in (0, 1), optional
        Confidence level of the interval, for the sentence ("95 % interval").
    note : str, optional
        Why the value is undefined (e.g. a result's ``note``); used when `value` is NaN.
    left_out : tuple of str, optional
        The comparisons the value leaves out, with why (``evaluate_result`` reads them off the
        result's table); kept in the verdict and named at the end of its sentence.

    Returns
    -------
    Verdict

    Raises
    ------
    ValueError
        If `distance_measure` differs from the rule's (``UNITS_MESSAGE``), ci_low > ci_high
        (``INTERVAL_ORDER_MESSAGE``), or `level` is not in (0, 1) (``LEVEL_MESSAGE``).
    TypeError
        If `rule` is not a Rule or a number is not real.

    References
    ----------
    Fairlearn's guide to assessing fairness (the vocabulary of "disparity" and "assess");
    Aequitas (Saleiro et al. 2018) for pass/fail on disparity bands, extended here with
    intervals.

    Examples
    --------
    >>> rule = DEFAULT_RULES[0]
    >>> print(evaluate(rule, 0.72, ci_low=0.65, ci_high=0.78, level=0.95).sentence)
    Four-fifths rule: p% score 0.72 (95 % interval 0.65–0.78) is below 0.8 across the whole
    interval: fails.
    >>> evaluate(rule, 0.78, ci_low=0.70, ci_high=0.86, level=0.95).status
    'inconclusive'
    """
    if not isinstance(rule, Rule):
        raise TypeError(RULE_TYPE_MESSAGE.format(func="evaluate", got=type(rule).__name__))
    if distance_measure is not None:
        check_option(distance_measure, ("diff", "ratio"), "distance_measure", "evaluate")
    if distance_measure is not None and distance_measure != rule.distance_measure:
        raise ValueError(UNITS_MESSAGE.format(name=rule.name, metric=rule.metric, expected=rule.distance_measure,
                                              bound=rule.bound, got=distance_measure))
    value = _real(value, "value")
    low, high = _real(ci_low, "ci_low"), _real(ci_high, "ci_high")
    level = _check_level(level, "evaluate")
    has_interval = not (math.isnan(low) or math.isnan(high))
    if has_interval and low > high:
        raise ValueError(INTERVAL_ORDER_MESSAGE.format(low=ci_low, high=ci_high))
    bound, maximum = rule.bound, rule.direction == "max"
    title = rule.label.split(": ", 1)[0] if ": " in rule.label else ""
    subject = _subject(rule.metric, rule.distance_measure)
    head = f"{title}: {subject}" if title else _capital(subject)
    b = _fmt(bound)
    infinite = math.isinf(value) and rule.distance_measure == "ratio"

    left_out = tuple(str(x) for x in left_out)
    if math.isnan(value):
        reason = note.strip() if isinstance(note, str) and note.strip() else UNDEFINED_NOTE
        sentence = f"{head} could not be assessed ({reason})."
        return _with_left_out(Verdict(rule, value, low, high, "not_assessable", sentence, level, reason), left_out)

    v = _fmt(value, bound)
    if has_interval:
        within = _at_most(high, bound) if maximum else _at_least(low, bound)
        beyond = not _at_most(low, bound) if maximum else not _at_least(high, bound)
        status = "pass" if within else "fail" if beyond else "inconclusive"
        lvl = f"{level * 100:g} % interval" if level is not None else "interval"
        interval = f"{v} ({lvl} {_fmt(low, bound)}–{_fmt(high, bound)})"
        if status == "pass":
            compared = "at most" if maximum else "at least"
            sentence = f"{head} {interval} is {compared} {b} across the whole interval: passes."
        elif status == "fail":
            compared = "above" if maximum else "below"
            sentence = f"{head} {interval} is {compared} {b} across the whole interval: fails."
        else:
            side = ("equals" if math.isclose(value, bound, rel_tol=BOUND_RTOL)
                    else "is above" if value > bound else "is below")
            sentence = (f"{head} {interval} {side} {b}, but the interval straddles {b}: inconclusive at this "
                        f"sample size.")
        verdict_note = ""
        if infinite:
            verdict_note = INFINITE_RATIO_NOTE
            sentence += f" The point estimate is infinite because {INFINITE_REASON}."
        return _with_left_out(Verdict(rule, value, low, high, status, sentence, level, verdict_note), left_out)

    passes = _at_most(value, bound) if maximum else _at_least(value, bound)
    status = "pass" if passes else "fail"
    if infinite:
        sentence = f"{head} is infinite because {INFINITE_REASON}, so it is above {b}: fails; {NO_INTERVAL_NOTE}."
        return _with_left_out(Verdict(rule, value, low, high, status, sentence, level,
                                      f"{INFINITE_RATIO_NOTE}; {NO_INTERVAL_NOTE}"), left_out)
    compared = ("is at most" if passes else "is above") if maximum else ("is at least" if passes else "is below")
    sentence = f"{head} {v} {compared} {b}: {'passes' if passes else 'fails'}; {NO_INTERVAL_NOTE}."
    return _with_left_out(Verdict(rule, value, low, high, status, sentence, level, NO_INTERVAL_NOTE), left_out)


MAX_NAMED = 5   # left-out comparisons a verdict's sentence names (the rest are counted)


def _with_left_out(verdict: Verdict, left_out: tuple) -> Verdict:
    """`verdict` carrying `left_out`, its sentence ending with them ("Not assessed: a: 12 rows < minimum 30; ...")."""
    if not left_out:
        return verdict
    named = "; ".join(left_out[:MAX_NAMED]) + (f"; and {len(left_out) - MAX_NAMED} more" if len(left_out) > MAX_NAMED
                                                else "")
    from dataclasses import replace
    return replace(verdict, sentence=f"{verdict.sentence} Not assessed: {named}.", left_out=left_out)


def left_out_of(result: Any) -> tuple:
    """The comparisons a result's value leaves out, one text each: ``"<subgroup>: <why>"`` (``"<a> vs <b>: ..."``
    for a pair), for small ones (unless the result included them) and undefined ones.

    Parameters
    ----------
    result : object
        A result with a ``table`` (``subgroup``, optional ``reference``, ``small``, ``small_reason``,
        ``note`` and the value column ``disparity`` or ``score``) and ``n_small_excluded``, as
        :class:`DisparityResult` and :class:`RatioScoresResult` have; others give ``()``.

    Returns
    -------
    tuple of str
    """
    table = _attribute(result, "table", None)
    if not isinstance(table, pd.DataFrame) or "subgroup" not in table or table.empty:
        return ()
    column = next((c for c in ("disparity", "score") if c in table), None)
    if column is None:
        return ()
    n = len(table)
    small = table["small"].to_numpy(dtype=bool) if "small" in table else np.zeros(n, bool)
    small = small & bool(_attribute(result, "n_small_excluded", 0))
    undefined = table[column].isna().to_numpy() & ~small
    reasons = table["small_reason"].astype(str).to_numpy() if "small_reason" in table else np.full(n, "small")
    notes = table["note"].astype(str).to_numpy() if "note" in table else np.full(n, "undefined")
    pair = "reference" in table and not table["reference"].isin(["rest", "overall"]).all()
    out = []
    for i in np.flatnonzero(small | undefined):
        who = str(table["subgroup"].iloc[i]) + (f" vs {table['reference'].iloc[i]}" if pair else "")
        why = (reasons[i] or "small") if small[i] else (notes[i] or "undefined")
        out.append(f"{who}: {why}")
    return tuple(out)


def _attribute(result: Any, name: str, default: Any) -> Any:
    """`result.name`, else `result.disparity.name` (results that wrap a DisparityResult), else default."""
    if hasattr(result, name):
        return getattr(result, name)
    inner = getattr(result, "disparity", None)
    if inner is not None and not isinstance(inner, (pd.DataFrame, np.ndarray)) and hasattr(inner, name):
        return getattr(inner, name)
    return default


def evaluate_result(rule: Rule, result: Any, *, level: Optional[float] = None) -> Verdict:
    """Assess a metric's result object against a rule (see :func:`evaluate`).

    Reads ``value``, ``ci_low``, ``ci_high`` (NaN when absent), ``distance_measure`` (the units
    guard; None when absent), ``level`` and ``note`` from the result, falling back to its
    ``.disparity`` (as in :class:`CalibrationDisparityResult`) for any it lacks. Works with
    :class:`DisparityResult`, :class:`RatioScoreResult`, :class:`RatioScoresResult`,
    :class:`BiasAucResult`, :class:`CalibrationDisparityResult` or any object with a ``value``.

    Parameters
    ----------
    rule : Rule
    result : object
        Anything with a ``value`` attribute.
    level : float in (0, 1), optional
        Confidence level for the sentence; defaults to the result's ``level`` when it has one.

    Returns
    -------
    Verdict

    Raises
    ------
    ValueError
        If the result's ``distance_measure`` differs from the rule's (``UNITS_MESSAGE``), e.g. a
        calibration disparity computed as a ratio against the 0.1 difference bound.
    TypeError
        If `result` has no ``value`` (``RESULT_VALUE_MESSAGE``).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> res = SimpleNamespace(value=1.4, ci_low=1.3, ci_high=1.5, distance_measure="ratio", level=0.9)
    >>> print(evaluate_result(DEFAULT_RULES[4], res).sentence)
    False positive rate band: false positive rate disparity (ratio) 1.4 (90 % interval 1.3–1.5)
    is above 1.25 across the whole interval: fails.
    """
    if not hasattr(result, "value"):
        raise TypeError(RESULT_VALUE_MESSAGE.format(got=type(result).__name__))
    nan = float("nan")
    if level is None:
        found = _attribute(result, "level", None)
        level = found if _is_real(found) and 0.0 < float(found) < 1.0 else None
    note = _attribute(result, "note", "")
    note = note if isinstance(note, str) else ""
    n_used = getattr(result, "n_used", None)
    if not note and _is_real(n_used) and n_used == 0:
        parts = [f"{count} {what}" for count, what in
                 ((getattr(result, "n_undefined", None), "comparison(s) undefined"),
                  (getattr(result, "n_small_excluded", None), "left out as small"))
                 if _is_real(count) and count]
        note = "no comparison entered it" + (f": {', '.join(parts)}" if parts else "")
    return evaluate(rule, result.value, ci_low=_attribute(result, "ci_low", nan),
                    ci_high=_attribute(result, "ci_high", nan),
                    distance_measure=_attribute(result, "distance_measure", None), level=level, note=note,
                    left_out=left_out_of(result))


SUMMARY_COLUMNS = ["rule", "metric", "distance_measure", "value", "ci_low", "ci_high", "bound", "direction",
                   "status", "sentence"]


def summarize_verdicts(verdicts: Iterable[Verdict]) -> pd.DataFrame:
    """One row per verdict, and the number of verdicts of each status.

    Parameters
    ----------
    verdicts : iterable of Verdict

    Returns
    -------
    DataFrame
        Columns ``rule`` (the rule's name), ``metric``, ``distance_measure``, ``value``,
        ``ci_low``, ``ci_high``, ``bound``, ``direction``, ``status``, ``sentence``, in the
        order given. ``.attrs["counts"]`` is a dict of the count of each status in
        ``STATUSES`` order (``pass, fail, inconclusive, not_assessable``), zeros included.

    Raises
    ------
    TypeError
        If an item is not a Verdict (``VERDICT_TYPE_MESSAGE``).

    Examples
    --------
    >>> frame = summarize_verdicts([evaluate(r, 0.9) for r in DEFAULT_RULES[:2]])
    >>> frame.attrs["counts"]
    {'pass': 2, 'fail': 0, 'inconclusive': 0, 'not_assessable': 0}
    """
    rows = []
    for index, v in enumerate(verdicts):
        if not isinstance(v, Verdict):
            raise TypeError(VERDICT_TYPE_MESSAGE.format(got=type(v).__name__, index=index))
        rows.append((v.rule.name, v.rule.metric, v.rule.distance_measure, v.value, v.ci_low, v.ci_high,
                     v.rule.bound, v.rule.direction, v.status, v.sentence))
    frame = pd.DataFrame(rows, columns=SUMMARY_COLUMNS)
    for column in ("value", "ci_low", "ci_high", "bound"):
        frame[column] = frame[column].astype(np.float64)
    frame.attrs["counts"] = {s: int((frame["status"] == s).sum()) for s in STATUSES}
    return frame
