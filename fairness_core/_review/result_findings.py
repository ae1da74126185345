"""Findings of a computed result: the reduced disparity (reduction_finding) and the largest comparisons of
a disparity table (disparity_findings).
"""

from __future__ import annotations

from dataclasses import fields
from typing import Optional

import numpy as np

from .._disparity.compare import DisparityResult, distance
from .._metrics.rates import DISPARITY_METRICS
from .finding import Finding
from .findings import LIMIT_MESSAGE, RESULT_MESSAGE, RESULT_METRIC_MESSAGE, _disadvantaged_first, _record
from .sentences import (_Texts, _adjust_text, _int, _interval_text, _level_text, _pct, _points, _rate_text,
    _ratio_text, _reduced_interval_text, _reference_name, _zero_side)


def reduction_finding(result: DisparityResult, metric: str, *, positive_text: Optional[str] = None,
                      negative_text: Optional[str] = None, positive_outcome_text: Optional[str] = None,
                      negative_outcome_text: Optional[str] = None,
                      positive_outcome: str = "favourable") -> Optional[Finding]:
    """The comparison that drives a reduced rate disparity, as a finding with its sentence.

    For a ``"max"`` reduction: the comparison that attains it (``result.worst``), e.g. "The
    largest false positive rate ratio, 2.27 (95 % interval 1.92–3.17), is Other against
    everyone else (...)". An infinite max (exactly one rate 0) is described by the zero rate
    ("0 of 23 people ...") and the difference instead. For a ``"mean"`` reduction: the mean, the
    number of comparisons it is taken over, the largest of them, and the comparisons left out
    because their ratio is infinite (which subgroups have a zero rate, and on how many people).

    Parameters
    ----------
    result : DisparityResult
        A reduced rate disparity, e.g. ``counts.disparity(metric, distance_measure="ratio",
        reduction="max", ci=0.95)``.
    metric : str
        The rate it was computed on (a name accepted by :func:`rate_disparity`, or
        ``'selection_rate'``); it chooses the words.
    positive_text, negative_text, positive_outcome_text, negative_outcome_text : str, optional
        The words for the prediction and the outcomes; see :func:`rate_findings`.
    positive_outcome : {'favourable', 'adverse'}, default='favourable'
        Whether a positive prediction is good or bad for the person: for a pairwise reference,
        the pair is named from its disadvantaged subgroup, as in :func:`rate_findings`.

    Returns
    -------
    Finding or None
        A finding of kind ``'reduction'``: the reduced value and its interval in
        ``reduction_value`` / ``reduction_ci``; the driving comparison's rates, counts, ratio and
        difference (``ratio_ci`` is the comparison's own interval for a ratio result; the
        ``difference_ci`` of a reduction finding is NaN, as the table holds only |a - b|). None
        when no comparison was defined.

    Raises
    ------
    ValueError
        If `result` is not a DisparityResult, `metric` is unknown, or a text is not a
        non-empty str (``RESULT_MESSAGE``, ``RESULT_METRIC_MESSAGE``, ``TEXT_MESSAGE``).

    References
    ----------
    Fairlearn user guide, "Fairness in machine learning" (careful language), https://fairlearn.org.
    Saleiro, P. et al. (2018), "Aequitas: A Bias and Fairness Audit Toolkit", arXiv:1811.05577.

    Examples
    --------
    >>> import fairness_core as fc
    >>> y_true = [0] * 40 + [1] * 40 + [0] * 40 + [1] * 40
    >>> y_pred = [1] * 20 + [0] * 20 + [1] * 30 + [0] * 10 + [1] * 4 + [0] * 36 + [1] * 30 + [0] * 10
    >>> counts = fc.confusion_counts(y_true, y_pred, ["a"] * 80 + ["b"] * 80)
    >>> result = counts.disparity("false_positive_rate", distance_measure="ratio", reduction="max")
    >>> print(reduction_finding(result, "false_positive_rate").sentence)  # doctest: +ELLIPSIS
    The largest false positive rate ratio, 5.00, is a against everyone else (...).
    """
    func = "reduction_finding"
    if not isinstance(result, DisparityResult):
        raise ValueError(RESULT_MESSAGE.format(got=type(result).__name__))
    rate = "selection_rate" if metric == "selection_rate" else DISPARITY_METRICS.get(metric)
    if rate is None:
        raise ValueError(RESULT_METRIC_MESSAGE.format(allowed=list(DISPARITY_METRICS), got=metric))
    texts = _Texts(func, positive_text, negative_text, positive_outcome_text, negative_outcome_text)
    label, _, _, people = texts.words(rate)
    table = result.table
    mode = result.reference
    measure = result.distance_measure
    used = (np.ones(len(table), bool) if result.n_small_excluded == 0
            else ~table["small"].to_numpy(dtype=bool))
    disp = table["disparity"].to_numpy(dtype=np.float64)
    if result.reduction == "max":
        if result.worst is None:
            return None
        pick = ((table["subgroup"] == result.worst[0]) & (table["reference"] == result.worst[1])).to_numpy()
    else:
        finite = used & np.isfinite(disp)
        if not finite.any():
            if result.n_infinite == 0:
                return None
            finite = used & ~np.isnan(disp)
        pick = np.zeros(len(table), bool)
        pick[np.flatnonzero(finite)[np.argmax(disp[finite])]] = True
    row = table[pick].iloc[0].copy()
    a, b = float(row["subgroup_value"]), float(row["reference_value"])
    row["metric"] = metric
    row["ratio"] = float(distance(a, b, "ratio")) if measure != "ratio" else float(row["disparity"])
    row["difference"] = a - b
    if measure == "ratio" and "disparity_ci_low" in row.index:
        row["ratio_ci_low"], row["ratio_ci_high"] = row["disparity_ci_low"], row["disparity_ci_high"]
    row["excludes_parity"] = row["excludes_parity"] if "excludes_parity" in row.index else None
    row["p_value"] = row["p_value"] if "p_value" in row.index else np.nan
    row["severity"] = abs(a - b)
    what = f"{label} {'ratio' if measure == 'ratio' else 'difference'}"
    row["drives"] = f"drives the max {what}" if result.reduction == "max" else None
    f = _record(row, kind="reduction", reference_mode=mode, level=result.level, adjust=result.adjust)
    f = _disadvantaged_first(f, rate, positive_outcome, func)
    a, b = f["subgroup_value"], f["reference_value"]
    f.update(reduction=result.reduction, reduction_value=float(result.value),
             reduction_ci=(float(result.ci_low), float(result.ci_high)))

    def value_text(v: float) -> str:
        return _ratio_text(v) if measure == "ratio" else f"{_points(v)} percentage points"

    level_txt = None if result.level is None else _level_text(result.level)
    interval = _interval_text(result.ci_low, result.ci_high, _ratio_text if measure == "ratio" else _points)
    if interval and measure != "ratio":
        interval += " points"
    with_interval = _reduced_interval_text(level_txt, interval, result.reduction, int(result.n_used))
    against = _reference_name(f["reference"], mode)
    a_txt = _rate_text(f["numerator"], f["denominator"], a)
    b_txt = _rate_text(f["reference_numerator"], f["reference_denominator"], b)
    sizes = (f"; {f['denominator']:,} vs {f['reference_denominator']:,} {people}"
             if f["denominator"] >= 0 and f["reference_denominator"] >= 0 else "")
    pair_txt = f"{f['subgroup']} against {against} ({label} {a_txt} vs {b_txt}{sizes})"
    if f["excludes_parity"] is False:
        pair_txt += ", a disparity not distinguishable from parity at this sample size"
    infinite = used & np.isinf(disp)
    zeros = "; ".join(_zero_side(r, mode, people) for _, r in table[infinite].iterrows())
    if result.reduction == "max":
        if np.isinf(result.value):
            sentence = (f"The largest {label} ratio is infinite because one rate is 0: {pair_txt}. A ratio cannot "
                        f"describe a zero rate; the difference is {_points(a - b)} percentage points.")
            if result.n_infinite > 1:
                sentence += f" {result.n_infinite} comparisons have a zero rate ({zeros})."
        else:
            sentence = f"The largest {what}, {value_text(result.value)}{with_interval}, is {pair_txt}."
    else:
        if np.isnan(result.value):
            sentence = f"The mean {what} is undefined: every comparison left has a ratio that is infinite."
        else:
            sentence = (f"The mean {what} over {result.n_used:,} comparison{'s' if result.n_used != 1 else ''} is "
                        f"{value_text(result.value)}{with_interval}; the largest is {pair_txt}.")
        if result.n_infinite:
            n = result.n_infinite
            sentence += (f" {n:,} comparison{'s are' if n != 1 else ' is'} left out of the mean because the ratio "
                         f"is infinite with a zero rate ({zeros}).")
    if result.n_undefined:
        n = result.n_undefined
        sentence += f" {n:,} comparison{'s are' if n != 1 else ' is'} undefined and left out."
    if result.n_small_excluded:
        n = result.n_small_excluded
        sentence += (f" {n:,} comparison{'s' if n != 1 else ''} with too few people to assess at this sample size "
                     f"{'are' if n != 1 else 'is'} left out.")
    f["sentence"] = sentence
    return Finding(**f)


QUANTITY_MESSAGE = "The 'quantity' parameter of disparity_findings must be a non-empty str. Got {got!r} instead."
DISPARITY_RESULT_MESSAGE = (
    "The 'result' parameter of disparity_findings must be a DisparityResult (a reduced disparity). Got {got} instead."
)


def disparity_findings(result: DisparityResult, quantity: str, *, limit: int = 3,
                       percent: bool = False) -> list[Finding]:
    """The comparisons of any reduced disparity whose interval excludes parity, as findings.

    The generic counterpart of :func:`rate_findings` for quantities that are not rates of a
    confusion matrix (an expected calibration error, a base rate, a mean benefit, ...). It reads
    only the comparison table of `result` (columns ``subgroup, reference, size, reference_size,
    subgroup_value, reference_value, disparity, small`` and, with intervals,
    ``disparity_ci_low, disparity_ci_high, excludes_parity``):

    1. the comparison that drives the reduction (``result.worst`` for a max; for a mean, the mean
       and the largest comparison), with the reduced value and its interval;
    2. up to `limit` comparisons whose interval excludes parity, ranked by the end of their
       disparity interval nearest parity (the smallest disparity the data support), each with
       both values, the disparity, its interval and both group sizes;
    3. without any such comparison but with intervals, one sentence saying that no disparity is
       distinguishable from parity at this sample size;
    4. how many comparisons were left out as small or undefined (appended to the first sentence).

    Parameters
    ----------
    result : DisparityResult
        A reduced disparity (``reduction='max'`` or ``'mean'``), with or without intervals.
    quantity : str
        What the compared values are, in words, e.g. ``'expected calibration error'`` or
        ``'base rate'``.
    limit : int, default=3
        At most this many comparisons in item 2.
    percent : bool, default=False
        Write values (and differences) as percentages, as for rates; otherwise with 3 decimals.

    Returns
    -------
    list of Finding
        The driver first (kind ``'reduction'``), then kind ``'disparity'`` findings (for item 3,
        one finding about the first defined comparison); empty when no comparison is defined.
        ``metric`` is `quantity`; count fields the table lacks are -1. Sentences are plain text
        (escape them before rendering as Markdown or HTML).

    Raises
    ------
    ValueError
        If `result` is not a DisparityResult, `quantity` is empty or `limit` is not an int >= 1
        (``DISPARITY_RESULT_MESSAGE``, ``QUANTITY_MESSAGE``, ``LIMIT_MESSAGE``).

    References
    ----------
    Fairlearn user guide, "Fairness in machine learning" (careful language), https://fairlearn.org.
    """
    if not isinstance(result, DisparityResult):
        raise ValueError(DISPARITY_RESULT_MESSAGE.format(got=type(result).__name__))
    if not isinstance(quantity, str) or not quantity.strip():
        raise ValueError(QUANTITY_MESSAGE.format(got=quantity))
    if isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or limit < 1:
        raise ValueError(LIMIT_MESSAGE.format(got=limit).replace("rate_findings", "disparity_findings"))
    table, mode, measure = result.table, result.reference, result.distance_measure
    if table.empty:
        return []
    fmt = _pct if percent else (lambda v: f"{float(v):.3f}")
    diff_fmt = (lambda v: f"{_points(v)} percentage points") if percent else (lambda v: f"{float(v):.3f}")
    size_fmt = _ratio_text if measure == "ratio" else diff_fmt
    kind_word = "ratio" if measure == "ratio" else "difference"
    level_txt = None if result.level is None else _level_text(result.level)
    # A table whose intervals are all blank (a ratio of ECEs has none) says nothing about parity.
    has_ci = ("excludes_parity" in table.columns and result.level is not None
              and bool(table["disparity_ci_low"].notna().any()))
    used = np.ones(len(table), bool) if result.n_small_excluded == 0 else ~table["small"].to_numpy(dtype=bool)
    disp = table["disparity"].to_numpy(dtype=np.float64)

    def interval_text(low, high) -> str:
        text = _interval_text(float(low), float(high), size_fmt if measure == "ratio" else
                              ((lambda v: _points(v)) if percent else (lambda v: f"{float(v):.3f}")))
        return text + (" points" if text and percent and measure != "ratio" else "") if text else ""

    adjusted = _adjust_text(result.adjust, table.attrs.get("n_comparisons"))

    def interval(low, high) -> str:
        """A comparison's own interval (adjusted for multiple comparisons when it is)."""
        text = interval_text(low, high)
        return f", {level_txt} interval{adjusted} {text}" if level_txt and text else ""

    def pair(row) -> str:
        against = _reference_name(str(row["reference"]), mode)
        a, b = float(row["subgroup_value"]), float(row["reference_value"])
        sizes = f"; {_int(row['size']):,} vs {_int(row['reference_size']):,} people"
        return (f"{row['subgroup']} against {against} ({quantity} {fmt(a)} vs {fmt(b)}{sizes})")

    def record(row, kind: str, severity: float, drives=None) -> dict:
        row = row.copy()
        a, b = float(row["subgroup_value"]), float(row["reference_value"])
        row["metric"] = quantity
        row["ratio"] = float(distance(a, b, "ratio"))
        row["difference"] = a - b
        if measure == "ratio" and "disparity_ci_low" in row.index:
            row["ratio_ci_low"], row["ratio_ci_high"] = row["disparity_ci_low"], row["disparity_ci_high"]
        row["excludes_parity"] = row["excludes_parity"] if "excludes_parity" in row.index else None
        row["p_value"] = row["p_value"] if "p_value" in row.index else np.nan
        row["severity"] = severity
        row["drives"] = drives
        return _record(row, kind=kind, reference_mode=mode, level=result.level, adjust=result.adjust)

    out = []
    # 1. The driver of the reduction.
    defined = used & ~np.isnan(disp)
    if defined.any():
        if result.reduction == "max" and result.worst is not None:
            pick = ((table["subgroup"] == result.worst[0]) & (table["reference"] == result.worst[1])).to_numpy()
            at = int(np.flatnonzero(pick)[0])
        else:
            at = int(np.flatnonzero(defined)[np.nanargmax(np.where(defined, disp, np.nan))])
        row = table.iloc[at]
        reduced = _reduced_interval_text(level_txt, interval_text(result.ci_low, result.ci_high) or None,
                                         result.reduction, int(result.n_used))
        if result.reduction == "max":
            sentence = (f"The largest {quantity} {kind_word}, {size_fmt(result.value)}{reduced}, is {pair(row)}.")
        else:
            n = result.n_used
            sentence = (f"The mean {quantity} {kind_word} over {n:,} comparison{'s' if n != 1 else ''} is "
                        f"{size_fmt(result.value)}{reduced}; the largest is {pair(row)}.")
        f = record(row, "reduction", float(disp[at]), f"drives the {result.reduction} {quantity} {kind_word}")
        f.update(reduction=result.reduction, reduction_value=float(result.value),
                 reduction_ci=(float(result.ci_low), float(result.ci_high)), sentence=sentence)
        out.append(Finding(**f))
    # 2./3. Comparisons whose interval excludes parity.
    if has_ci:
        excl = table["excludes_parity"].fillna(False).to_numpy(dtype=bool) & used
        if excl.any():
            low = table["disparity_ci_low"].to_numpy(dtype=np.float64)
            order = np.flatnonzero(excl)[np.argsort(-low[excl], kind="stable")][:limit]
            for at in order:
                row = table.iloc[int(at)]
                d = float(row["disparity"])
                text = (f"{pair(row)[:-1]}; {kind_word} {size_fmt(d)}"
                        f"{interval(row['disparity_ci_low'], row['disparity_ci_high'])}).")
                # the sentence starts with the subgroup's name: written as the data writes it, never capitalized
                out.append(Finding(**record(row, "disparity", float(low[at])), sentence=text))
        elif defined.any():
            n = int(defined.sum())
            adjust = _adjust_text(result.adjust, table.attrs.get("n_comparisons"))
            out.append(Finding(**record(table.iloc[int(np.flatnonzero(defined)[0])], "disparity", 0.0),
                               sentence=(f"No {quantity} disparity is distinguishable from parity at this sample "
                                         f"size ({n:,} comparison{'s' if n != 1 else ''}, {level_txt} "
                                         f"intervals{adjust}).")))
    # 4. What was left out.
    left = []
    if result.n_small_excluded:
        n = result.n_small_excluded
        left.append(f"{n:,} comparison{'s' if n != 1 else ''} with too few people to assess at this sample size")
    if result.n_undefined:
        n = result.n_undefined
        left.append(f"{n:,} undefined comparison{'s' if n != 1 else ''}")
    if left and out:
        first = {fl.name: getattr(out[0], fl.name) for fl in fields(Finding)}
        out[0] = Finding(**{**first, "sentence": first["sentence"] + " Left out: " + " and ".join(left) + "."})
    return out
