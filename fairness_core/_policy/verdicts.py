"""Verdicts: a rule evaluated on a value and its interval (pass, fail, inconclusive, not assessable),
on a result object, and summarized as a table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional

import numpy as np
import pandas as pd

from .._data.checks import check_option
from .rules import BOUND_RTOL, RULE_TYPE_MESSAGE, STATUSES, Rule, Status, _capital, _fmt, _is_real, _subject


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

UNDEFINED_NOTE = "no value could be computed"
NO_INTERVAL_NOTE = "no interval was available, so the verdict rests on the point estimate alone"
INFINITE_REASON = "one of the two compared values is 0"
INFINITE_RATIO_NOTE = f"the ratio is infinite because {INFINITE_REASON}"


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
    rows_factor : float
        For an inconclusive verdict: about how many times the rows would decide it at the current
        estimate (:func:`rows_factor`; inf when the estimate is on the bound); NaN otherwise.
    smallest : float
        The rows (effective rows with weights) of the smallest subgroup the value compares, when
        known (:func:`evaluate_result`); NaN otherwise. ``smallest * rows_factor`` is about what
        that subgroup would need.
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
    rows_factor: float = field(default=float("nan"), compare=False)
    smallest: float = field(default=float("nan"), compare=False)


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


ROWS_MARGIN = 1.3   # the interval's half must shrink to 1 / 1.3 of the gap to the bound


def rows_factor(rule: Rule, value: float, low: float, high: float) -> float:
    """About how many times the rows would decide an inconclusive verdict, at its current estimate.

    An interval's half-width shrinks as 1 / sqrt(n). Its half h (the larger of the two: a
    disparity's lower end is held at parity while its interval includes parity, so the lower half
    understates the width) must shrink below the gap g = |value - bound|, with a margin: the factor
    is (1.3 h / g)², at least 1. At that many rows, were the truth the current estimate, the
    interval's end would lie short of the estimate by g / 1.3, 0.45 of a standard error from the
    bound (1.96 (1 - 1 / 1.3)), so the verdict would be decided in about two samples of three
    (measured: 65 % and 71 %, tests/fairness_core/test_rows_needed.py). Ratios are measured on the log
    scale, on which their intervals are symmetric.

    Parameters
    ----------
    rule : Rule
    value, low, high : float
        The estimate and its interval, in the rule's units.

    Returns
    -------
    float
        >= 1; inf when the estimate is on the bound (no number of rows decides it there); NaN
        when any input is NaN, or a ratio's end is not positive.

    Examples
    --------
    >>> from fairness_core import Rule
    >>> rule = Rule(name="fpr", metric="false_positive_rate", distance_measure="diff", bound=0.05)
    >>> round(rows_factor(rule, 0.08, 0.01, 0.15), 2)   # h = 0.15 - 0.08, g = 0.08 - 0.05
    9.2
    """
    x, lo, hi, bound = value, low, high, rule.bound
    if any(math.isnan(v) for v in (x, lo, hi)):
        return float("nan")
    if rule.distance_measure == "ratio":
        if min(x, lo, bound) <= 0 or math.isinf(x) or math.isinf(hi):
            return float("nan")
        x, lo, hi, bound = math.log(x), math.log(lo), math.log(hi), math.log(bound)
    gap = abs(x - bound)
    if gap <= BOUND_RTOL * max(abs(bound), 1e-12):
        return float("inf")
    half = max(hi - x, x - lo)   # the larger half: a disparity's lower end is held at parity when its interval
    return max(1.0, (ROWS_MARGIN * half / gap) ** 2)   # includes it, so that half is not its width


def _rows_text(factor: float, smallest: float) -> str:
    """The sentence's clause for an inconclusive verdict: the rows that would decide it."""
    if math.isnan(factor):
        return ""
    if math.isinf(factor):
        return " The estimate is on the bound: no number of rows decides it at this estimate."
    times = f"{factor:.1f}" if factor < 10 else f"{factor:,.0f}"
    where = ("" if math.isnan(smallest) or smallest <= 0 else
             f" (the smallest subgroup compared, {smallest:,.0f} rows, about {smallest * factor:,.0f})")
    return f" At this estimate about {times} times the rows would decide it{where}."


def evaluate(rule: Rule, value: float, *, ci_low: Optional[float] = None, ci_high: Optional[float] = None,
             distance_measure: Optional[str] = None, level: Optional[float] = None, note: str = "",
             left_out: tuple = (), smallest: Optional[float] = None) -> Verdict:
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
    smallest : float, optional
        The rows of the smallest subgroup the value compares: an inconclusive verdict's sentence
        then says about how many it would need (:func:`rows_factor`).

    Returns
    -------
    Verdict
        An inconclusive one carries ``rows_factor`` and its sentence says about how many times
        the rows would decide it at this estimate.

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
    >>> from fairness_core import DEFAULT_RULES
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
        factor = rows_factor(rule, value, low, high) if status == "inconclusive" else float("nan")
        least = float("nan") if smallest is None else _real(smallest, "smallest")
        sentence += _rows_text(factor, least)
        return _with_left_out(Verdict(rule, value, low, high, status, sentence, level, verdict_note,
                                      rows_factor=factor, smallest=least), left_out)

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
    found = _comparisons(result)
    if found is None or "subgroup" not in found[0]:
        return ()
    table, small, undefined, pair = found
    n = len(table)
    reasons = table["small_reason"].astype(str).to_numpy() if "small_reason" in table else np.full(n, "small")
    notes = table["note"].astype(str).to_numpy() if "note" in table else np.full(n, "undefined")
    out = []
    for i in np.flatnonzero(small | undefined):
        who = str(table["subgroup"].iloc[i]) + (f" vs {table['reference'].iloc[i]}" if pair else "")
        why = (reasons[i] or "small") if small[i] else (notes[i] or "undefined")
        out.append(f"{who}: {why}")
    return tuple(out)


def _comparisons(result: Any) -> Optional[tuple]:
    """A result's comparison table and, per row, whether it was left out as small (unless the result included
    small ones) or as undefined (its ``disparity`` or ``score`` NaN), and whether its rows compare pairs of
    subgroups: ``(table, small, undefined, pair)``; None without such a table."""
    table = _attribute(result, "table", None)
    if not isinstance(table, pd.DataFrame) or table.empty:
        return None
    column = next((c for c in ("disparity", "score") if c in table), None)
    if column is None:
        return None
    small = table["small"].to_numpy(dtype=bool) if "small" in table else np.zeros(len(table), bool)
    small = small & bool(_attribute(result, "n_small_excluded", 0))
    undefined = table[column].isna().to_numpy() & ~small
    pair = "reference" in table and not table["reference"].isin(["rest", "overall"]).all()
    return table, small, undefined, pair


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
    >>> from fairness_core import DEFAULT_RULES
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
                    left_out=left_out_of(result), smallest=smallest_compared(result))


def smallest_compared(result: Any) -> Optional[float]:
    """The rows (effective rows with weights) of the smallest subgroup among the comparisons a result's value
    uses: its table's ``size`` (and ``reference_size`` of a pair of subgroups) over the rows with a defined value,
    small ones left out unless the result included them; None when there is no such table."""
    found = _comparisons(result)
    if found is None or "size" not in found[0]:
        return None
    table, small, undefined, pair = found
    used = ~(small | undefined)
    sizes = [pd.to_numeric(table["size"], errors="coerce").to_numpy(dtype=np.float64)[used]]
    if pair and "reference_size" in table:
        sizes.append(pd.to_numeric(table["reference_size"], errors="coerce").to_numpy(dtype=np.float64)[used])
    values = np.concatenate(sizes)
    values = values[~np.isnan(values)]
    return float(values.min()) if len(values) else None


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
    >>> from fairness_core import DEFAULT_RULES
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
