"""Findings: the few most important rate disparities, as structured records with a plain sentence.

A finding is one comparison (a subgroup against its reference) described with both sizes of the
disparity (the ratio max/min and the signed difference a - b), their bootstrap intervals, the
counts behind each rate and a sentence in the field's careful voice: it names the subgroups, the
size, the interval and the group sizes; says "not distinguishable from parity at this sample
size" when the interval includes parity; says "0 of 69" rather than an infinite ratio; and says
when a subgroup is too small to assess. Findings are built here, without any UI, so the app, the
report and the command line reuse the same records and words.

Everything is computed from :class:`ConfusionCounts` (for :func:`rate_findings`) or from a
:class:`DisparityResult` (for :func:`reduction_finding`); no row is touched.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Optional

import numpy as np
import pandas as pd

from .._stats.bootstrap import percentile_interval, rng_of
from .._disparity.compare import DisparityResult, bootstrap_comparison, distance, keyword, reduce_disparities
from .._stats.intervals import mover_interval
from .._metrics.rates import DISPARITY_METRICS, ConfusionCounts, _rate

DEFAULT_METRICS = ("false_positive_rate", "false_negative_rate", "statistical_parity")
# A small comparison is worth a "too few to assess" finding when its point ratio falls outside the
# four-fifths band [0.8, 1.25] (the policy band of issue 7, item 5).
LARGE_RATIO = 1.25
ADJUST_NAMES = {"bonferroni": "Bonferroni", "holm": "Holm", "fdr_bh": "Benjamini-Hochberg"}

COUNTS_MESSAGE = (
    "The 'counts' parameter of rate_findings must be a ConfusionCounts (from confusion_counts(y_true, y_pred, "
    "subgroups)). Got {got} instead."
)
LIMIT_MESSAGE = "The 'limit' parameter of rate_findings must be an int >= 1. Got {got!r} instead."
METRICS_MESSAGE = (
    "The 'metrics' parameter of rate_findings must be a non-empty sequence of rate names from {allowed}. "
    "Got {got!r} instead."
)
TEXT_MESSAGE = "The {name!r} parameter of {func} must be a non-empty str or None. Got {got!r} instead."
RESULT_MESSAGE = (
    "The 'result' parameter of reduction_finding must be a DisparityResult (a reduced disparity, e.g. "
    "counts.disparity(metric, reduction='max')). Got {got} instead."
)
RESULT_METRIC_MESSAGE = (
    "The 'metric' parameter of reduction_finding must be one of {allowed} (or 'selection_rate'). "
    "Got {got!r} instead."
)

# Words per rate: (label, who the rate is about, what happened to them, who the denominator counts).
# {pos} / {neg}: the positive / negative prediction; {pos_out} / {neg_out}: the actual outcomes.
_WORDS = {
    "selection_rate": ("selection rate", "", "were {pos}", "people"),
    "true_positive_rate": ("true positive rate", " who {pos_out}", "were {pos}", "people who {pos_out}"),
    "false_positive_rate": ("false positive rate", " who {neg_out}", "were {pos}", "people who {neg_out}"),
    "false_negative_rate": ("false negative rate", " who {pos_out}", "were {neg}", "people who {pos_out}"),
    "false_omission_rate": ("false omission rate", " who were {neg}", "{pos_out}", "people who were {neg}"),
    "false_discovery_rate": ("false discovery rate", " who were {pos}", "{neg_out}", "people who were {pos}"),
    "error_rate": ("error rate", "", "received a wrong prediction", "people"),
}


@dataclass(frozen=True)
class Finding:
    """One disparity of one rate, with its numbers and a plain-language sentence.

    Attributes
    ----------
    metric : str
        The rate compared, as named by :func:`rate_disparity` (e.g. ``'false_positive_rate'``,
        ``'statistical_parity'``).
    subgroup : str
        The subgroup described (the first of a pair).
    reference : str
        What it is compared with, as in the comparison table: ``'rest'`` (everyone else),
        ``'overall'`` (the whole population) or a subgroup name (a named reference, or the other
        subgroup of a pair).
    reference_mode : str
        The ``reference`` option the comparison was made with: ``'rest'``, ``'overall'``,
        ``'pairwise'`` or the named reference subgroup.
    kind : {'disparity', 'too_small', 'reduction'}
        A ranked comparison; a small comparison reported only to say it is too small to assess;
        or the description of a reduced disparity (:func:`reduction_finding`).
    subgroup_value, reference_value : float
        The two rates a and b.
    subgroup_value_ci, reference_value_ci : tuple of (float, float)
        Wilson score intervals of a and b (NaN when no interval was asked for).
    ratio : float
        max(a, b) / min(a, b) >= 1; 1 when both are 0, inf when exactly one is 0.
    difference : float
        Signed a - b (0 is parity).
    ratio_ci, difference_ci : tuple of (float, float)
        Percentile bootstrap intervals of `ratio` and `difference`; NaN when not computed. The
        ratio interval's lower end is 1 when it includes parity, as in the comparison tables.
    excludes_parity : bool or None
        Whether the intervals exclude parity (ratio 1 and difference 0; after the `adjust`
        correction when one was asked for); None without intervals or when undefined.
    p_value : float
        Two-sided bootstrap p-value of "no disparity" (NaN without intervals).
    numerator, denominator, reference_numerator, reference_denominator : int
        The counts behind a and b (e.g. for the false positive rate: false positives and actual
        negatives). -1 when the table does not carry them.
    size, reference_size : int
        Rows in the subgroup and in its reference.
    small : bool
        The comparison involves a subgroup (or a rate denominator) below the minimum size.
    small_reason : str
        Why it is small ('' when it is not).
    drives : str or None
        The reduction this comparison decides, e.g. ``'drives the max false positive rate
        ratio'``; None if it decides none.
    level : float or None
        Confidence level of the intervals.
    adjust : str or None
        Multiple-comparison adjustment of the intervals and of `excludes_parity`.
    reduction : str or None
        For ``kind='reduction'``: ``'max'`` or ``'mean'``.
    reduction_value : float
        For ``kind='reduction'``: the reduced disparity (NaN otherwise).
    reduction_ci : tuple of (float, float)
        Its percentile bootstrap interval (NaN otherwise).
    severity : float
        What findings are ranked by: the end of the difference's interval nearest 0, i.e. the
        smallest absolute difference the data support at the chosen level (0 when the interval
        includes parity); |difference| when there is no interval.
    sentence : str
        The finding in plain language (plain text: no Markdown or HTML).
    """

    metric: str
    subgroup: str
    reference: str
    reference_mode: str
    kind: str
    subgroup_value: float
    reference_value: float
    subgroup_value_ci: tuple
    reference_value_ci: tuple
    ratio: float
    difference: float
    ratio_ci: tuple
    difference_ci: tuple
    excludes_parity: Optional[bool]
    p_value: float
    numerator: int
    denominator: int
    reference_numerator: int
    reference_denominator: int
    size: int
    reference_size: int
    small: bool
    small_reason: str
    drives: Optional[str]
    level: Optional[float]
    adjust: Optional[str]
    reduction: Optional[str]
    reduction_value: float
    reduction_ci: tuple
    severity: float
    sentence: str

    def __str__(self) -> str:
        return self.sentence


# ---------------------------------------------------------------------------------------------
# Text helpers
# ---------------------------------------------------------------------------------------------

_NAN2 = (float("nan"), float("nan"))


class _Texts:
    """The words for the prediction and the outcomes, with neutral defaults."""

    def __init__(self, func, positive_text, negative_text, positive_outcome_text, negative_outcome_text):
        for name, value in (("positive_text", positive_text), ("negative_text", negative_text),
                            ("positive_outcome_text", positive_outcome_text),
                            ("negative_outcome_text", negative_outcome_text)):
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise ValueError(TEXT_MESSAGE.format(name=name, func=func, got=value))
        self.pos = positive_text.strip() if positive_text else "predicted positive"
        if negative_text:
            self.neg = negative_text.strip()
        else:
            self.neg = f"not {self.pos}" if positive_text else "predicted negative"
        self.pos_out = positive_outcome_text.strip() if positive_outcome_text else "were actually positive"
        self.neg_out = negative_outcome_text.strip() if negative_outcome_text else "were actually negative"

    def words(self, rate: str) -> tuple[str, str, str, str]:
        label, who, what, people = _WORDS[rate]
        kw = {"pos": self.pos, "neg": self.neg, "pos_out": self.pos_out, "neg_out": self.neg_out}
        return label, who.format(**kw), what.format(**kw), people.format(**kw)


def _isnan(x) -> bool:
    return x is None or (isinstance(x, (float, np.floating)) and np.isnan(x))


def _int(x) -> int:
    return -1 if _isnan(x) else int(x)


def _pct(v: float) -> str:
    """A rate as a percentage: 44.8 %; two significant digits below 0.1 %."""
    p = 100.0 * float(v)
    if 0 < abs(p) < 0.05:
        return f"{p:.2g} %"
    return f"{p:.1f} %"


def _rate_text(k: int, n: int, v: float) -> str:
    """A rate as a percentage, or as 'k of n' when it is 0 or 1 (a ratio cannot describe those)."""
    if _isnan(v):
        return "undefined"
    if k >= 0 and n > 0 and (k == 0 or k == n):
        return f"{k:,} of {n:,}"
    return _pct(v)


def _ratio_text(r: float) -> str:
    return f"{r:,.2f}"


def _points(d: float) -> str:
    return f"{100.0 * d:.1f}"


def _interval_text(low: float, high: float, fmt) -> Optional[str]:
    """'1.86–2.25', '-23.1 to -14.2', or '1.47 or more (no upper bound)'; None if undefined."""
    if _isnan(low) or _isnan(high):
        return None
    if np.isinf(high):
        return f"{fmt(low)} or more (no upper bound)"
    if low < 0 or high < 0:
        return f"{fmt(low)} to {fmt(high)}"
    return f"{fmt(low)}–{fmt(high)}"


def _level_text(level: float) -> str:
    return f"{100.0 * level:g} %"


def _adjust_text(adjust: Optional[str], n_comparisons: Optional[int]) -> str:
    if not adjust:
        return ""
    return f" ({ADJUST_NAMES.get(adjust, adjust)}-adjusted for {n_comparisons} comparisons)"


def _reference_name(reference: str, mode: str, *, people: bool = False) -> str:
    """How the reference reads: everyone else, the whole population, or the subgroup's name
    (``people in X`` after 'the rate of', with `people`)."""
    if keyword(mode) == "rest":
        return "everyone else"
    if keyword(mode) == "overall":
        return "the whole population"
    return f"people in {reference}" if people else reference


def _lead(subgroup: str, reference: str, mode: str, rate: str, a: float, b: float, ratio: float,
          texts: _Texts) -> str:
    """'People in X who did not reoffend were flagged high risk at 2.04× the rate of everyone else'."""
    _, who, what, _ = texts.words(rate)
    subject = f"People in {subgroup}{who} {what}"
    ref = _reference_name(reference, mode, people=True)
    if a == b:
        return f"{subject} at the same rate as {ref}"
    if np.isinf(ratio):
        side = "higher" if a > b else "lower"
        return f"{subject} at a {side} rate than {ref}"
    if a > b:
        return f"{subject} at {_ratio_text(ratio)}× the rate of {ref}"
    return f"{subject} at a lower rate than {ref}, by a factor of {_ratio_text(ratio)}"


def _few_text(subgroup, size, den, reference, mode, ref_den, min_size, rate, texts: _Texts) -> str:
    """'Native American has too few people to assess at this sample size (18; minimum 30)'."""
    label, _, _, people = texts.words(rate)
    if 0 <= size < min_size:
        return f"{subgroup} has too few people to assess at this sample size ({size:,} people; minimum {min_size})"
    if 0 <= den < min_size:
        return (f"{subgroup} has too few {people} to assess the {label} at this sample size "
                f"({den:,} of {size:,} people; minimum {min_size})")
    ref = _reference_name(reference, mode)
    ref = ref[0].upper() + ref[1:] if keyword(mode) in ("rest", "overall") else ref
    if 0 <= ref_den < min_size:
        return (f"{ref} has too few {people} to assess the {label} at this sample size "
                f"({ref_den:,} {people}; minimum {min_size})")
    return f"{ref} has too few people to assess at this sample size (minimum {min_size})"


# ---------------------------------------------------------------------------------------------
# Sentences
# ---------------------------------------------------------------------------------------------


def _details(f: dict, rate: str, texts: _Texts, n_comparisons) -> str:
    """The parenthesis: rates, difference, intervals, group sizes."""
    label, _, _, people = texts.words(rate)
    a_txt = _rate_text(f["numerator"], f["denominator"], f["subgroup_value"])
    b_txt = _rate_text(f["reference_numerator"], f["reference_denominator"], f["reference_value"])
    parts = [f"{label} {a_txt} vs {b_txt}, a difference of {_points(f['difference'])} percentage points"]
    if np.isinf(f["ratio"]):
        parts[0] += "; the ratio is infinite because one rate is 0"
    if f["level"] is not None:
        r_int = None if np.isinf(f["ratio"]) else _interval_text(*f["ratio_ci"], _ratio_text)
        d_int = _interval_text(*f["difference_ci"], _points)
        got = [p for p in ((f"ratio {r_int}" if r_int else None),
                           (f"difference {d_int} points" if d_int else None)) if p]
        if got:
            parts.append(f"{_level_text(f['level'])} interval{'s' if len(got) > 1 else ''}"
                         f"{_adjust_text(f['adjust'], n_comparisons)}: " + ", ".join(got))
        else:
            parts.append("no interval could be computed")
    else:
        parts.append("no interval computed")
    if f["denominator"] >= 0 and f["reference_denominator"] >= 0:
        parts.append(f"{f['denominator']:,} vs {f['reference_denominator']:,} {people}")
    return "; ".join(parts)


def _disparity_sentence(f: dict, rate: str, texts: _Texts, n_comparisons, min_size) -> str:
    lead = _lead(f["subgroup"], f["reference"], f["reference_mode"], rate, f["subgroup_value"],
                 f["reference_value"], f["ratio"], texts)
    if f["excludes_parity"] is False and f["subgroup_value"] != f["reference_value"]:
        lead += ", but the disparity is not distinguishable from parity at this sample size"
    sentence = f"{lead} ({_details(f, rate, texts, n_comparisons)})."
    if f["drives"]:
        what = f["drives"].replace("drives the max ", "")
        among = "pairs" if keyword(f["reference_mode"]) == "pairwise" else "subgroups"
        sentence += f" It is the largest {what} among the {among} assessed."
    if f["small"]:
        sentence += (" " + _few_text(f["subgroup"], f["size"], f["denominator"], f["reference"],
                                     f["reference_mode"], f["reference_denominator"], min_size, rate, texts)
                     + ", so treat it with caution.")
    return sentence


def _too_small_sentence(f: dict, rate: str, texts: _Texts, min_size) -> str:
    few = _few_text(f["subgroup"], f["size"], f["denominator"], f["reference"], f["reference_mode"],
                    f["reference_denominator"], min_size, rate, texts)
    lead = _lead(f["subgroup"], f["reference"], f["reference_mode"], rate, f["subgroup_value"],
                 f["reference_value"], f["ratio"], texts)
    label = texts.words(rate)[0]
    a_txt = _rate_text(f["numerator"], f["denominator"], f["subgroup_value"])
    b_txt = _rate_text(f["reference_numerator"], f["reference_denominator"], f["reference_value"])
    detail = f"{label} {a_txt} vs {b_txt}"
    a_int = _interval_text(*f["subgroup_value_ci"], _pct) if f["level"] is not None else None
    if a_int:
        detail += f"; {_level_text(f['level'])} interval of the rate in {f['subgroup']} {a_int}"
    return (f"{few}. The observed disparity is large but rests on too few people to rank: {lead[0].lower() + lead[1:]} ({detail}; "
            f"{f['denominator']:,} vs {f['reference_denominator']:,} {texts.words(rate)[3]}).")


# ---------------------------------------------------------------------------------------------
# rate_findings
# ---------------------------------------------------------------------------------------------


def _seed(random_state, func: str) -> int:
    """One int seed, so that every bootstrap of one call draws the same replicates."""
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        rng_of(random_state, func)  # validates (>= 0)
        return int(random_state)
    return int(rng_of(random_state, func).integers(2**63 - 1))


def _check_metrics(metrics) -> tuple[str, ...]:
    if isinstance(metrics, str):
        metrics = (metrics,)
    try:
        metrics = tuple(metrics)
    except TypeError:
        metrics = ()
    if not metrics or any(m not in DISPARITY_METRICS for m in metrics):
        raise ValueError(METRICS_MESSAGE.format(allowed=list(DISPARITY_METRICS), got=metrics))
    return tuple(dict.fromkeys(metrics))


def _signed_interval(counts: ConfusionCounts, rate: str, reference: str, n_boot: int, seed: int,
                     level: float, func: str, table: pd.DataFrame) -> np.ndarray:
    """Interval of the signed difference a - b, shape (2, n_comparisons): the percentile interval joined with the
    MOVER interval of the two rates (as the comparison table's, ``_compare.add_intervals``).

    Drawn with the same seed as the disparity calls, so the replicates are the same ones.
    """
    signed, _ = bootstrap_comparison(
        counts.atoms, counts.names, reference, lambda m, b, o: tuple(_rate(x, rate)[0] for x in (m, b, o)),
        distance_measure="diff", n_boot=n_boot, rng=rng_of(seed, func))
    low, high, _ = percentile_interval(signed, level)
    side_low, side_high = mover_interval(*(table[c].to_numpy(dtype=np.float64) for c in (
        "numerator", "denominator", "reference_numerator", "reference_denominator")), level, "diff")
    return np.vstack([np.fmin(low, side_low), np.fmax(high, side_high)])


def _drives(table: pd.DataFrame, measure: str, include_small: bool, reference: str) -> np.ndarray:
    """Mask of the comparison that attains the max reduction of `table`."""
    result = reduce_disparities(table, "max", distance_measure=measure, reference=reference,
                                include_small=include_small)
    if result.worst is None:
        return np.zeros(len(table), bool)
    return ((table["subgroup"] == result.worst[0]) & (table["reference"] == result.worst[1])).to_numpy()


def _metric_candidates(counts, metric, *, reference, level, n_boot, seed, adjust, include_small, func):
    """Both comparison tables of one metric, merged into one frame of candidates."""
    kw = dict(reduction=None, reference=reference, ci=level, n_boot=n_boot, random_state=seed, adjust=adjust,
              func=func)
    rt = counts.disparity(metric, distance_measure="ratio", **kw)
    dt = counts.disparity(metric, distance_measure="diff", **kw)
    rate = DISPARITY_METRICS[metric]
    a = rt["subgroup_value"].to_numpy(dtype=np.float64)
    b = rt["reference_value"].to_numpy(dtype=np.float64)
    out = rt.drop(columns=["disparity", "note"] + [c for c in ("disparity_ci_low", "disparity_ci_high",
                                                                 "p_value", "excludes_parity") if c in rt])
    out["ratio"] = rt["disparity"].to_numpy(dtype=np.float64)
    out["difference"] = a - b
    n = len(rt)
    if level is None:
        out["ratio_ci_low"] = out["ratio_ci_high"] = np.full(n, np.nan)
        out["difference_ci_low"] = out["difference_ci_high"] = np.full(n, np.nan)
        out["p_value"] = np.full(n, np.nan)
        excludes = np.full(n, None, dtype=object)
        severity = np.abs(a - b)
    else:
        out["ratio_ci_low"] = rt["disparity_ci_low"].to_numpy(dtype=np.float64)
        out["ratio_ci_high"] = rt["disparity_ci_high"].to_numpy(dtype=np.float64)
        low, high = _signed_interval(counts, rate, reference, n_boot, seed, dt.attrs.get("row_level", level), func,
                                     dt)
        r_ex, d_ex = rt["excludes_parity"].astype("boolean"), dt["excludes_parity"].astype("boolean")
        # Both intervals must exclude parity (they come from the same replicates and agree but at a knife edge).
        ex = (r_ex.fillna(False) & d_ex.fillna(False)).to_numpy(dtype=bool)
        excludes = np.where((r_ex.isna() | d_ex.isna()).to_numpy(), None, ex).astype(object)
        # As in the comparison tables: an interval that does not exclude parity is widened to include it.
        undefined = np.isnan(dt["disparity"].to_numpy(dtype=np.float64))
        low = np.where(undefined, np.nan, np.where(ex, low, np.fmin(low, 0.0)))
        high = np.where(undefined, np.nan, np.where(ex, high, np.fmax(high, 0.0)))
        out["difference_ci_low"], out["difference_ci_high"] = low, high
        out["p_value"] = dt["p_value"].to_numpy(dtype=np.float64)
        severity = np.where(ex, np.fmin(np.abs(low), np.abs(high)), 0.0)
        severity = np.where(np.isnan(severity), np.abs(a - b), severity)
    out["excludes_parity"] = excludes
    out["severity"] = severity
    label = _WORDS[rate][0]
    drives_ratio = _drives(rt, "ratio", include_small, reference)
    drives_diff = _drives(dt, "diff", include_small, reference)
    drives = np.full(n, None, dtype=object)
    drives[drives_diff] = f"drives the max {label} difference"
    drives[drives_ratio] = f"drives the max {label} ratio"
    drives[drives_ratio & drives_diff] = f"drives the max {label} ratio and difference"
    out["drives"] = drives
    out["metric"] = metric
    out["defined"] = ~np.isnan(out["ratio"].to_numpy(dtype=np.float64)) & ~np.isnan(a - b)
    out.attrs["n_comparisons"] = dt.attrs.get("n_comparisons")
    return out


def _record(row: pd.Series, *, kind: str, reference_mode: str, level, adjust) -> dict:
    """The fields of a Finding (all but the sentence) from a candidate row."""
    def pair(lo, hi):
        return (float(row[lo]), float(row[hi])) if lo in row.index else _NAN2

    excl = row["excludes_parity"]
    return dict(
        metric=row["metric"], subgroup=str(row["subgroup"]), reference=str(row["reference"]),
        reference_mode=reference_mode, kind=kind,
        subgroup_value=float(row["subgroup_value"]), reference_value=float(row["reference_value"]),
        subgroup_value_ci=pair("subgroup_value_ci_low", "subgroup_value_ci_high"),
        reference_value_ci=pair("reference_value_ci_low", "reference_value_ci_high"),
        ratio=float(row["ratio"]), difference=float(row["difference"]),
        ratio_ci=pair("ratio_ci_low", "ratio_ci_high"), difference_ci=pair("difference_ci_low", "difference_ci_high"),
        excludes_parity=None if excl is None or excl is pd.NA else bool(excl),
        p_value=float(row["p_value"]),
        numerator=_int(row.get("numerator")), denominator=_int(row.get("denominator")),
        reference_numerator=_int(row.get("reference_numerator")),
        reference_denominator=_int(row.get("reference_denominator")),
        size=_int(row.get("size")), reference_size=_int(row.get("reference_size")),
        small=bool(row["small"]), small_reason=str(row.get("small_reason", "") or ""),
        drives=row["drives"] if isinstance(row["drives"], str) else None,
        level=level, adjust=adjust, reduction=None, reduction_value=float("nan"), reduction_ci=_NAN2,
        severity=float(row["severity"]),
    )


def rate_findings(counts, metrics=DEFAULT_METRICS, *, reference: str = "rest", ci=0.95, n_boot: int = 1000,
                  random_state=0, adjust: Optional[str] = None, include_small: bool = False, limit: int = 3,
                  positive_text: Optional[str] = None, negative_text: Optional[str] = None,
                  positive_outcome_text: Optional[str] = None,
                  negative_outcome_text: Optional[str] = None) -> list[Finding]:
    """The most important rate disparities, as findings with a plain-language sentence.

    For each metric, every comparison (each subgroup against `reference`) is computed with both
    distances, ``counts.disparity(metric, distance_measure="ratio", reduction=None, ...)`` and
    the same with ``"diff"``; both use the same seed, so their bootstrap replicates are the same
    draws and the ratio and difference intervals agree on whether parity is excluded.

    Ranking. Only defined comparisons are ranked, and small ones only with ``include_small``.
    Comparisons whose intervals exclude parity come first, then those without an interval,
    then those that include parity. Within these tiers each metric's comparisons are ranked by
    ``severity``, the end of the difference's interval nearest 0 (the smallest absolute
    difference the data support at the chosen level; |a - b| without intervals), ties broken by
    |a - b|. The differences, not the ratios, rank: a difference is bounded and defined when a
    rate is 0, and counts how many people in a hundred are affected, while a ratio of two small
    rates can be large for very few people. The list then takes each metric's strongest
    comparison (in the order of `metrics`) before any metric's second, so the few findings shown
    cover the metrics asked for; the first `limit` are returned.

    A small comparison is never ranked by default. If one has a large point disparity (ratio
    outside the four-fifths band [0.8, 1.25]), one finding of kind ``'too_small'`` is added
    after the others (the one with the largest |a - b|): it says the subgroup is too few to
    assess at this sample size.

    Parameters
    ----------
    counts : ConfusionCounts
        From :func:`confusion_counts` (needed for intervals: it carries the bootstrap's atoms).
    metrics : sequence of str, default=('false_positive_rate', 'false_negative_rate', 'statistical_parity')
        Rate names accepted by :func:`rate_disparity`, in order of priority.
    reference : {'rest', 'overall', 'pairwise'} or a subgroup name, default='rest'
    ci : float in (0, 1) or None, default=0.95
        Confidence level; None computes no interval (``excludes_parity`` is then None).
    n_boot : int >= 100, default=1000
        Bootstrap replicates (multinomial over the confusion cells, stratified by subgroup
        membership; see :meth:`ConfusionCounts.disparity`).
    random_state : None, int >= 0 or numpy Generator, default=0
        Seed. An int gives identical findings on every call; None or a Generator draws one int
        seed used by every bootstrap of the call.
    adjust : {None, 'bonferroni', 'holm', 'fdr_bh'}, default=None
        Multiple-comparison adjustment of the intervals and ``excludes_parity`` (per metric,
        over its comparisons).
    include_small : bool, default=False
        Rank small comparisons too (their sentences then say they are too few to assess reliably).
    limit : int >= 1, default=3
        Findings returned (plus at most one ``'too_small'`` finding).
    positive_text : str, optional
        The positive prediction in words, e.g. ``'flagged high risk'``; default
        ``'predicted positive'``.
    negative_text : str, optional
        The negative prediction; default ``'not ' + positive_text`` (or ``'predicted negative'``).
    positive_outcome_text, negative_outcome_text : str, optional
        The actual outcomes after "people who", e.g. ``'reoffended'`` / ``'did not reoffend'``;
        default ``'were actually positive'`` / ``'were actually negative'``.

    Returns
    -------
    list of Finding
        Best first; the ``'too_small'`` finding, if any, last.

    Raises
    ------
    ValueError
        For bad `counts`, `metrics`, `limit` or texts (``COUNTS_MESSAGE``, ``METRICS_MESSAGE``,
        ``LIMIT_MESSAGE``, ``TEXT_MESSAGE``), and as :meth:`ConfusionCounts.disparity` for bad
        `reference`, `ci`, `n_boot`, `random_state` or `adjust`, or for hand-built counts with `ci`.

    References
    ----------
    Fairlearn user guide, "Fairness in machine learning" (the language of fairness-related harms:
    "disparity", "assess"; never "fair" or "unbiased"), https://fairlearn.org.
    Saleiro, P. et al. (2018), "Aequitas: A Bias and Fairness Audit Toolkit", arXiv:1811.05577
    (disparities of group rates against a reference group, with plain-language reports).
    Angwin, J. et al. (2016), "Machine Bias", ProPublica (the COMPAS false positive rates).
    Efron, B. & Tibshirani, R. (1993), "An Introduction to the Bootstrap" (percentile intervals).

    Examples
    --------
    >>> import fairness_core as fc
    >>> y_true = [0] * 40 + [1] * 40 + [0] * 40 + [1] * 40
    >>> y_pred = [1] * 20 + [0] * 20 + [1] * 30 + [0] * 10 + [1] * 4 + [0] * 36 + [1] * 30 + [0] * 10
    >>> counts = fc.confusion_counts(y_true, y_pred, ["a"] * 80 + ["b"] * 80)
    >>> top = rate_findings(counts, ["false_positive_rate"], limit=1)
    >>> print(top[0].sentence)
    People in a who were actually negative were predicted positive at 5.00× the rate of everyone else
    (false positive rate 50.0 % vs 10.0 %, a difference of 40.0 percentage points; 95 % intervals:
    ratio 2.00–21.48, difference 20.3–58.1 points; 40 vs 40 people who were actually negative). It
    is the largest false positive rate ratio and difference among the subgroups assessed.
    """
    func = "rate_findings"
    if not isinstance(counts, ConfusionCounts):
        raise ValueError(COUNTS_MESSAGE.format(got=type(counts).__name__))
    metrics = _check_metrics(metrics)
    if isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or limit < 1:
        raise ValueError(LIMIT_MESSAGE.format(got=limit))
    texts = _Texts(func, positive_text, negative_text, positive_outcome_text, negative_outcome_text)
    seed = _seed(random_state, func)
    from .._stats.intervals import check_ci

    level = check_ci(ci, func)
    tables = [_metric_candidates(counts, m, reference=reference, level=level, n_boot=n_boot, seed=seed,
                                 adjust=adjust, include_small=include_small, func=func) for m in metrics]
    n_comparisons = {m: t.attrs.get("n_comparisons") for m, t in zip(metrics, tables)}
    cand = pd.concat(tables, ignore_index=True)
    if cand.empty:
        return []
    cand["metric_index"] = np.repeat(np.arange(len(metrics)), [len(t) for t in tables])
    ex = cand["excludes_parity"].to_numpy(dtype=object)
    cand["tier"] = np.where(ex == True, 0, np.where(ex == False, 2, 1))  # noqa: E712
    cand["abs_difference"] = np.abs(cand["difference"].to_numpy(dtype=np.float64))
    small = cand["small"].to_numpy(dtype=bool)
    defined = cand["defined"].to_numpy(dtype=bool)
    eligible = cand[defined & (include_small | ~small)].sort_values(
        ["metric_index", "tier", "severity", "abs_difference"], ascending=[True, True, False, False], kind="stable")
    eligible = eligible.assign(rank=eligible.groupby("metric_index").cumcount())
    top = eligible.sort_values(["tier", "rank", "metric_index"], kind="stable").head(int(limit))

    findings = []
    for _, row in top.iterrows():
        f = _record(row, kind="disparity", reference_mode=reference, level=level, adjust=adjust)
        rate = DISPARITY_METRICS[f["metric"]]
        f["sentence"] = _disparity_sentence(f, rate, texts, n_comparisons[f["metric"]], counts.min_size)
        findings.append(Finding(**f))
    if not include_small:
        ratio = cand["ratio"].to_numpy(dtype=np.float64)
        large = cand[defined & small & (ratio > LARGE_RATIO)]
        if len(large):
            row = large.sort_values(["abs_difference", "ratio", "metric_index"], ascending=[False, False, True],
                                    kind="stable").iloc[0]
            f = _record(row, kind="too_small", reference_mode=reference, level=level, adjust=adjust)
            f["drives"] = None
            f["sentence"] = _too_small_sentence(f, DISPARITY_METRICS[f["metric"]], texts, counts.min_size)
            findings.append(Finding(**f))
    return findings


# ---------------------------------------------------------------------------------------------
# reduction_finding
# ---------------------------------------------------------------------------------------------


def _zero_side(row: pd.Series, mode: str, people: str) -> str:
    """'Asian: 0 of 23 people who did not reoffend' for the side of an infinite ratio whose rate is 0."""
    if float(row["subgroup_value"]) == 0:
        name, n = str(row["subgroup"]), _int(row.get("denominator", np.nan))
    else:
        name, n = _reference_name(str(row["reference"]), mode), _int(row.get("reference_denominator", np.nan))
    return f"{name}: 0 of {n:,} {people}" if n >= 0 else f"{name}: a rate of 0"


def reduction_finding(result: DisparityResult, metric: str, *, positive_text: Optional[str] = None,
                      negative_text: Optional[str] = None, positive_outcome_text: Optional[str] = None,
                      negative_outcome_text: Optional[str] = None) -> Optional[Finding]:
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
    f.update(reduction=result.reduction, reduction_value=float(result.value),
             reduction_ci=(float(result.ci_low), float(result.ci_high)))

    def value_text(v: float) -> str:
        return _ratio_text(v) if measure == "ratio" else f"{_points(v)} percentage points"

    level_txt = None if result.level is None else _level_text(result.level)
    interval = _interval_text(result.ci_low, result.ci_high, _ratio_text if measure == "ratio" else _points)
    if interval and measure != "ratio":
        interval += " points"
    with_interval = f" ({level_txt} interval {interval})" if level_txt and interval else ""
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
    has_ci = "excludes_parity" in table.columns and result.level is not None
    used = np.ones(len(table), bool) if result.n_small_excluded == 0 else ~table["small"].to_numpy(dtype=bool)
    disp = table["disparity"].to_numpy(dtype=np.float64)

    def interval(low, high) -> str:
        text = _interval_text(float(low), float(high), size_fmt if measure == "ratio" else
                              ((lambda v: _points(v)) if percent else (lambda v: f"{float(v):.3f}")))
        if not (level_txt and text):
            return ""
        return f", {level_txt} interval {text}" + (" points" if percent and measure != "ratio" else "")

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
        reduced = interval(result.ci_low, result.ci_high)
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
                sentence = text[0].upper() + text[1:]
                out.append(Finding(**record(row, "disparity", float(low[at])), sentence=sentence))
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


# ---------------------------------------------------------------------------------------------
# findings_table
# ---------------------------------------------------------------------------------------------

_PAIR_FIELDS = ("subgroup_value_ci", "reference_value_ci", "ratio_ci", "difference_ci", "reduction_ci")


def findings_table(findings) -> pd.DataFrame:
    """Findings as a table, one row per finding, for export (CSV, JSON).

    Parameters
    ----------
    findings : iterable of Finding
        E.g. from :func:`rate_findings` and :func:`reduction_finding` (None entries are skipped).

    Returns
    -------
    DataFrame
        One row per finding, in order; one column per field of :class:`Finding`, with each
        interval split into ``<field>_low`` and ``<field>_high`` (e.g. ``ratio_ci_low,
        ratio_ci_high``). ``excludes_parity`` is a nullable boolean column.

    References
    ----------
    Saleiro, P. et al. (2018), "Aequitas: A Bias and Fairness Audit Toolkit", arXiv:1811.05577
    (a disparity table alongside its plain-language report).

    Examples
    --------
    >>> findings_table([]).columns[:4].tolist()
    ['metric', 'subgroup', 'reference', 'reference_mode']
    """
    names = [f.name for f in fields(Finding)]
    columns = []
    for name in names:
        columns += [f"{name}_low", f"{name}_high"] if name in _PAIR_FIELDS else [name]
    rows = []
    for finding in findings:
        if finding is None:
            continue
        if not isinstance(finding, Finding):
            raise ValueError(f"findings_table needs Finding objects. Got {type(finding).__name__} instead.")
        row = {}
        for name in names:
            value = getattr(finding, name)
            if name in _PAIR_FIELDS:
                row[f"{name}_low"], row[f"{name}_high"] = value
            else:
                row[name] = value
        rows.append(row)
    out = pd.DataFrame(rows, columns=columns)
    out["excludes_parity"] = pd.array(list(out["excludes_parity"]), dtype="boolean")
    return out


_AUC_WORDS = {
    "subgroup_auc": ("subgroup AUC", "the score separates positives from negatives less well within {name} "
                                     "than in the whole population"),
    "bpsn_auc": ("BPSN AUC", "the negatives of {name} are scored above the positives of everyone else more "
                             "often than overall, which tends to mean more false positives for {name}"),
    "bnsp_auc": ("BNSP AUC", "the positives of {name} are scored below the negatives of everyone else more "
                             "often than overall, which tends to mean more false negatives for {name}"),
}


def outcome_words(mapping) -> dict:
    """The words of findings for a mapping whose positive prediction is adverse for the person (§5.0).

    Parameters
    ----------
    mapping : ColumnMapping

    Returns
    -------
    dict
        For ``positive_outcome='adverse'``: ``positive_text``, ``negative_text``,
        ``positive_outcome_text`` and ``negative_outcome_text`` naming the label and its value
        ("were predicted deny = yes", "who actually had deny ≠ yes"), for :func:`rate_findings` and
        :func:`reduction_finding`, so a finding never calls a denial "positive". Empty for a
        favourable one (the neutral defaults).

    Examples
    --------
    >>> from fairness_core import ColumnMapping
    >>> outcome_words(ColumnMapping(label="deny", positive_label="yes", positive_outcome="adverse"))["positive_text"]
    'predicted deny = yes'
    """
    if getattr(mapping, "positive_outcome", "favourable") != "adverse":
        return {}
    event = f"{mapping.label} = {mapping.positive_label}"
    other = f"{mapping.label} ≠ {mapping.positive_label}"
    return {"positive_text": f"predicted {event}", "negative_text": f"predicted {other}",
            "positive_outcome_text": f"actually had {event}", "negative_outcome_text": f"actually had {other}"}


def direction_warning(overall_auc: float, label: object, positive: object) -> Optional[str]:
    """The warning an overall AUC below 0.5 deserves: the score ranks the other label value higher.

    Parameters
    ----------
    overall_auc : float
    label, positive : object
        The label column's name and the positive label (the event the score is taken to predict).

    Returns
    -------
    str or None
        None at 0.5 or above (or NaN).

    Examples
    --------
    >>> direction_warning(0.146, "deny", "no")[:75]
    'The overall AUC is 0.146, below 0.5: the score ranks the other class higher'
    """
    if not overall_auc < 0.5:
        return None
    return (f"The overall AUC is {overall_auc:.3f}, below 0.5: the score ranks the other class higher. Is the "
            f"positive label ({label} = {positive}) the event the score predicts? If not, choose the other value: "
            f"whether that event is good or bad for the person is set apart, so every verdict keeps its meaning.")


def _auc_rows(table: pd.DataFrame, row, column: str) -> str:
    """The rows an AUC of `row` compares (a BPSN AUC: the subgroup's negatives and the other rows' positives)."""
    pos, neg = int(row["n_positive"]), int(row["n_negative"])
    total_pos, total_neg = table.attrs.get("n_positive"), table.attrs.get("n_negative")
    if column == "subgroup_auc" or total_pos is None or total_neg is None:
        return f"{pos + neg:,} rows: {pos:,} positive, {neg:,} negative"
    if column == "bpsn_auc":
        return f"{neg:,} negatives of the subgroup against {int(total_pos) - pos:,} positives of the other rows"
    return f"{pos:,} positives of the subgroup against {int(total_neg) - neg:,} negatives of the other rows"


def auc_findings(table: pd.DataFrame, *, include_small: bool = False) -> list[str]:
    """Sentences on the lowest subgroup, BPSN and BNSP AUC whose interval lies below the overall AUC.

    For each AUC column, among the subgroups used (small ones only with `include_small`), the
    subgroup with the lowest AUC whose whole interval (``<column>_ci_high``) lies below the overall
    AUC's point estimate is named, with its AUC, interval and the rows it compares (a BPSN AUC: the
    subgroup's negatives against the positives of the other rows), and what a low value of that
    AUC means for the people in it (Borkan et al. 2019). Plain text: escape it before rendering it
    as Markdown or HTML.

    Parameters
    ----------
    table : DataFrame
        From :func:`bias_auc_table` with ``ci`` (its ``attrs["ci"]`` and ``attrs["overall_auc"]``).
    include_small : bool, default=False

    Returns
    -------
    list of str
        At most three sentences; empty when the table has no intervals or no AUC lies below.

    References
    ----------
    Borkan et al. (2019), "Nuanced Metrics for Measuring Unintended Bias with Real Data for Text
    Classification"; seed 000.
    """
    level, overall = table.attrs.get("ci"), table.attrs.get("overall_auc")
    if level is None or overall is None or np.isnan(overall):
        return []
    used = table if include_small else table[~table["small"].astype(bool)]
    sentences = []
    for column, (name, meaning) in _AUC_WORDS.items():
        below = used[used[f"{column}_ci_high"].astype(float) < overall]
        if below.empty:
            continue
        row = below.loc[below[column].astype(float).idxmin()]
        group = str(row["subgroup"])
        sentences.append(
            f"The {name} of {group} is {float(row[column]):.4f} ({level * 100:g} % CI "
            f"{float(row[f'{column}_ci_low']):.4f}–{float(row[f'{column}_ci_high']):.4f}; "
            f"{_auc_rows(table, row, column)}), below the overall AUC of {overall:.4f} across its whole interval: "
            + meaning.format(name=group) + ".")
    return sentences
