"""The bottom line of a review: what fails, for whom and by how much; what could not be decided and why;
what is a property of the labels rather than of the model. Plain names first, the technical name beside."""

from __future__ import annotations

import math
from typing import Optional, Sequence

from .. import _registry as registry
from .._disparity.compare import keyword
from .._policy.defaults import ADVERSE_LABELS


def plain_name(rule) -> str:
    """The rule's metric in plain words, e.g. "Gap in false positive rates" or "Ratio of selection rates".

    Parameters
    ----------
    rule : Rule

    Returns
    -------
    str
        "Gap in <rates>" for a difference, "Ratio of <rates>" for a ratio; a descriptive name for the
        scores and the Theil index (the p% and equal opportunity scores named for the favourable prediction,
        "Favourable-prediction-rate ratio" and "True-negative-rate ratio", when their rule is labelled for an
        adverse positive prediction: ``outcome_rule``), as the metric registry's ``plain`` and ``plain_adverse``
        name them; the rule's label for a metric the registry gives no plain name.
    """
    if rule.metric not in registry.names():
        return rule.label
    spec = registry.spec(rule.metric)
    # When a positive prediction is adverse, the ratio scores compare the favourable prediction (their rules'
    # labels say so: ``_policy.defaults.outcome_rule``).
    if spec.plain_adverse and rule.label in ADVERSE_LABELS:
        return spec.plain_adverse
    if spec.kind == "distance" and spec.plain:
        return f"{'Ratio of' if rule.distance_measure == 'ratio' else 'Gap in'} {spec.plain}"
    return spec.plain or rule.label


def who(result) -> str:
    """Whom a result's value is about: the subgroup (and what it is compared with) attaining it.

    Reads ``worst``: a (subgroup, reference) pair (:class:`DisparityResult`), a subgroup
    (:class:`RatioScoresResult`), or the ``disparity`` of a :class:`CalibrationDisparityResult`.

    Parameters
    ----------
    result : object
        A metric result, or None.

    Returns
    -------
    str
        "Group C against everyone else", "Group C against the whole population", "Group B against
        Group C", "Group C"; '' when the result names no subgroup (a bias AUC score, a Theil index,
        an undefined value).
    """
    if result is None:
        return ""
    worst = getattr(result, "worst", None)
    mode = getattr(result, "reference", None)
    if worst is None and getattr(result, "disparity", None) is not None:
        worst, mode = getattr(result.disparity, "worst", None), getattr(result.disparity, "reference", None)
    if worst is None:
        return ""
    if isinstance(worst, str):   # a ratio score: the subgroup against the rest of the rows
        return f"{worst} against everyone else"
    subgroup, reference = (str(x) for x in worst)
    mode = keyword(mode)
    if mode == "rest":
        return f"{subgroup} against everyone else"
    if mode == "overall":
        return f"{subgroup} against the whole population"
    return f"{subgroup} against {reference}"


def _num(x: float) -> str:
    if math.isinf(x):
        return "infinite"
    return f"{x:.3g}"


def _names(items: Sequence[str], limit: int = 3) -> str:
    items = list(items)
    if len(items) > limit:
        items = items[:limit] + [f"{len(items) - limit} more"]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _lower(name: str) -> str:
    return name[0].lower() + name[1:]


def _failure(verdict, whom: str) -> str:
    """'the gap in false positive rates is 0.229 for C against everyone else, above the limit of 0.1'."""
    rule = verdict.rule
    side = "below the minimum" if rule.direction == "min" else "above the limit"
    return (f"the {_lower(plain_name(rule))} is {_num(verdict.value)}" + (f" for {whom}" if whom else "")
            + f", {side} of {rule.bound:g}")


def bottom_line(verdicts: Sequence, whom: Optional[Sequence[str]] = None, label_verdicts: Sequence = (),
                label_whom: Optional[Sequence[str]] = None, *, intervals: bool = True) -> tuple[str, ...]:
    """One to three plain sentences that sum up a review's verdicts.

    1. What fails, for whom and by how much: the first two failing rules in full, any others by name
       (or that nothing fails, and how many rules pass).
    2. What could not be decided: rules whose interval straddles the bound (more data decides them)
       and rules that could not be assessed (every comparison small or undefined). Omitted when none.
    3. What is a property of the labels rather than of the model: a data rule that fails or is
       undecided. Omitted when none.

    Parameters
    ----------
    verdicts : sequence of Verdict
        The model's verdicts, in the order the review lists them.
    whom : sequence of str, optional
        For each verdict, whom its value is about (:func:`who`); '' where none. Same length as
        `verdicts`.
    label_verdicts : sequence of Verdict
        Verdicts of rules about the labels (base rates), which say nothing about the model.
    label_whom : sequence of str, optional
        As `whom`, for `label_verdicts`.
    intervals : bool, default=True
        Whether the verdicts had intervals; without them the first sentence says that each verdict
        rests on a point estimate.

    Returns
    -------
    tuple of str
        Plain text (escape before rendering it as Markdown); empty when there is no verdict at all.

    Raises
    ------
    ValueError
        When `whom` or `label_whom` is not as long as its verdicts.

    Examples
    --------
    >>> from fairness_core import Rule, evaluate
    >>> rule = Rule(metric="false_positive_rate", distance_measure="diff", bound=0.1)
    >>> v = evaluate(rule, 0.23, ci_low=0.12, ci_high=0.41)
    >>> bottom_line([v], ["Group C against everyone else"])[0]
    'Fails 1 of 1 rule: the gap in false positive rates is 0.23 for Group C against everyone else, above the limit of 0.1.'
    """
    verdicts, label_verdicts = list(verdicts), list(label_verdicts)
    whom = [""] * len(verdicts) if whom is None else list(whom)
    label_whom = [""] * len(label_verdicts) if label_whom is None else list(label_whom)
    if len(whom) != len(verdicts) or len(label_whom) != len(label_verdicts):
        raise ValueError("bottom_line: 'whom' and 'label_whom' must give one text per verdict "
                         f"(got {len(whom)} for {len(verdicts)} and {len(label_whom)} for {len(label_verdicts)}).")
    sentences = []
    n = len(verdicts)
    rules = "rule" if n == 1 else "rules"
    failed = [(v, w) for v, w in zip(verdicts, whom) if v.status == "fail"]
    point = "" if intervals else " (intervals are off: each verdict rests on its point estimate alone)"
    if failed:
        # The first two in full; any others by name, so that the sentence stays short enough to read at a glance
        # (the scorecard beside it gives every rule's numbers).
        rest = [_lower(plain_name(v.rule)) for v, _ in failed[2:]]
        sentences.append(f"Fails {len(failed)} of {n} {rules}{point}: "
                         + "; ".join(_failure(v, w) for v, w in failed[:2])
                         + (f"; and the {_names(rest, 4)}" if rest else "") + ".")
    elif n:
        passed = sum(v.status == "pass" for v in verdicts)
        sentences.append(("Passes every rule" if passed == n else f"No rule fails; {passed} of {n} {rules} pass")
                         + f"{point}.")
    undecided = [_lower(plain_name(v.rule)) for v in verdicts if v.status == "inconclusive"]
    unassessed = [_lower(plain_name(v.rule)) for v in verdicts if v.status == "not_assessable"]
    parts = []
    if undecided:
        parts.append(f"{len(undecided)} {'rule' if len(undecided) == 1 else 'rules'} cannot be decided at this "
                     f"sample size, as the interval straddles the bound ({_names(undecided, 4)})")
    if unassessed:
        parts.append(f"{len(unassessed)} could not be assessed, as every comparison was too small or undefined "
                     f"({_names(unassessed, 4)})")
    if parts:
        sentences.append("; ".join(parts) + ".")
    about_labels = [(v, w) for v, w in zip(label_verdicts, label_whom) if v.status in ("fail", "inconclusive")]
    if about_labels:
        described = "; ".join(_failure(v, w) + ("" if v.status == "fail" else " (undecided at this sample size)")
                              for v, w in about_labels)
        sentences.append(f"The labels themselves differ between subgroups: {described}. This is a property of the "
                         "data, not of the model.")
    if not n and not sentences:
        return ()
    return tuple(sentences)
