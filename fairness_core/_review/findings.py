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

from typing import Optional

import numpy as np
import pandas as pd

from .._disparity.compare import keyword, reduce_disparities
from .._metrics.rates import DISPARITY_METRICS, ConfusionCounts
from .._stats.bootstrap import percentile_interval, rng_of
from .._stats.intervals import mover_interval
from .finding import Finding
from .sentences import _NAN2, _WORDS, _Texts, _disparity_sentence, _int, _too_small_sentence, higher_is_adverse


DEFAULT_METRICS = ("false_positive_rate", "false_negative_rate", "statistical_parity")
# A small comparison is worth a "too few to assess" finding when its point ratio falls outside the
# four-fifths band [0.8, 1.25] (the policy's band).
LARGE_RATIO = 1.25

COUNTS_MESSAGE = (
    "The 'counts' parameter of rate_findings must be a ConfusionCounts (from confusion_counts(y_true, y_pred, "
    "subgroups)). Got {got} instead."
)
LIMIT_MESSAGE = "The 'limit' parameter of rate_findings must be an int >= 1. Got {got!r} instead."
METRICS_MESSAGE = (
    "The 'metrics' parameter of rate_findings must be a non-empty sequence of rate names from {allowed}. "
    "Got {got!r} instead."
)
RESULT_MESSAGE = (
    "The 'result' parameter of reduction_finding must be a DisparityResult (a reduced disparity, e.g. "
    "counts.disparity(metric, reduction='max')). Got {got} instead."
)
RESULT_METRIC_MESSAGE = (
    "The 'metric' parameter of reduction_finding must be one of {allowed} (or 'selection_rate'). "
    "Got {got!r} instead."
)


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


def _signed_interval(counts: ConfusionCounts, metric: str, reference: str, n_boot: int, seed: int,
                     level: float, func: str, table: pd.DataFrame) -> np.ndarray:
    """Interval of the signed difference a - b, shape (2, n_comparisons): the percentile interval joined with the
    MOVER interval of the two rates (as the comparison table's, ``_disparity.compare.add_intervals``).

    The replicates of the disparity calls (the same seed): drawn once and kept on `counts`.
    """
    signed, _ = counts.replicates(metric, distance_measure="diff", reference=reference, n_boot=n_boot,
                                  random_state=seed, func=func)
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
        low, high = _signed_interval(counts, metric, reference, n_boot, seed, dt.attrs.get("row_level", level), func,
                                     dt)
        r_ex, d_ex = rt["excludes_parity"].astype("boolean"), dt["excludes_parity"].astype("boolean")
        # Both tables' intervals must exclude parity (they come from the same replicates and agree but at a knife
        # edge), and so must the two intervals printed with the finding: the signed difference's, a percentile
        # interval of its own, contained 0 in 1 of 166 random Holm-adjusted cases where the ratio's excluded 1.
        printed = (((low > 0.0) | (high < 0.0)) & (rt["disparity_ci_low"].to_numpy(dtype=np.float64) > 1.0))
        ex = (r_ex.fillna(False) & d_ex.fillna(False)).to_numpy(dtype=bool) & printed
        excludes = np.where((r_ex.isna() | d_ex.isna()).to_numpy(), None, ex).astype(object)
        # As in the comparison tables: an interval that does not exclude parity is widened to include it.
        undefined = np.isnan(dt["disparity"].to_numpy(dtype=np.float64))
        low = np.where(undefined, np.nan, np.where(ex, low, np.fmin(low, 0.0)))
        high = np.where(undefined, np.nan, np.where(ex, high, np.fmax(high, 0.0)))
        out["difference_ci_low"], out["difference_ci_high"] = low, high
        ratio_low = out["ratio_ci_low"].to_numpy(dtype=np.float64)
        out["ratio_ci_low"] = np.where(ex | np.isnan(ratio_low), ratio_low, np.fmin(ratio_low, 1.0))
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


_SIDES = (("subgroup", "reference"), ("subgroup_value", "reference_value"),
          ("subgroup_value_ci", "reference_value_ci"), ("numerator", "reference_numerator"),
          ("denominator", "reference_denominator"), ("size", "reference_size"))


def _disadvantaged_first(f: dict, rate: str, positive_outcome: str, func: str) -> dict:
    """A pairwise finding's record turned to speak about the disadvantaged subgroup of its pair.

    A pair's order in the comparison table is only the order of the names; the finding's subject
    (``subgroup``) becomes the side with the higher rate when a higher rate is adverse for the
    people it describes (:func:`higher_is_adverse`), else the side with the lower rate. The sides'
    fields are exchanged, the difference and its interval change sign; the ratio (max/min) and
    everything about the pair as a whole stay. Other references are returned as they are.

    Parameters
    ----------
    f : dict
        The fields of a Finding (:func:`_record`).
    rate : str
        The rate compared (``_WORDS``).
    positive_outcome : {'favourable', 'adverse'}
    func : str
        The caller, named in an error message.

    Returns
    -------
    dict
        `f` itself, or a copy with its sides exchanged.
    """
    if keyword(f["reference_mode"]) != "pairwise":
        return f
    a, b = f["subgroup_value"], f["reference_value"]
    if not (a < b if higher_is_adverse(rate, positive_outcome, func) else a > b):
        return f
    f = dict(f)
    for one, other in _SIDES:
        f[one], f[other] = f[other], f[one]
    low, high = f["difference_ci"]
    f["difference"], f["difference_ci"] = -f["difference"], (-high, -low)
    return f


def rate_findings(counts, metrics=DEFAULT_METRICS, *, reference: str = "rest", ci=0.95, n_boot: int = 1000,
                  random_state=0, adjust: Optional[str] = None, include_small: bool = False, limit: int = 3,
                  positive_text: Optional[str] = None, negative_text: Optional[str] = None,
                  positive_outcome_text: Optional[str] = None,
                  negative_outcome_text: Optional[str] = None,
                  positive_outcome: str = "favourable") -> list[Finding]:
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

    With ``reference='pairwise'`` each finding speaks about the disadvantaged subgroup of its
    pair (its ``subgroup``; the other is its ``reference``): the one with the higher rate when a
    higher rate is adverse for the people it describes, the one with the lower rate when it is
    favourable (`positive_outcome`; see :func:`higher_is_adverse`). Against 'rest', 'overall' or a
    named group the subject is always the subgroup, as it is in a ``'too_small'`` finding (the
    subgroup too small to assess). A lower rate reads as a fraction of the
    reference's ("at 0.44× the rate of everyone else"), with the ratio's interval in that
    orientation; the record's ``ratio`` and ``ratio_ci`` stay max/min.

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
        default ``'were labelled positive'`` / ``'were labelled negative'`` (``outcome_words.NEUTRAL``;
        :func:`outcome_words` gives a mapping's, in the data's own words).
    positive_outcome : {'favourable', 'adverse'}, default='favourable'
        Whether a positive prediction is good or bad for the person (``ColumnMapping.positive_outcome``):
        which subgroup of a pair is disadvantaged.

    Returns
    -------
    list of Finding
        Best first; the ``'too_small'`` finding, if any, last.

    Raises
    ------
    ValueError
        For bad `counts`, `metrics`, `limit` or texts (``COUNTS_MESSAGE``, ``METRICS_MESSAGE``,
        ``LIMIT_MESSAGE``, ``TEXT_MESSAGE``), and as :meth:`ConfusionCounts.disparity` for bad
        `reference`, `ci`, `n_boot`, `random_state` or `adjust`, or for hand-built counts with `ci`;
        for a `positive_outcome` other than 'favourable' or 'adverse' (``OPTION_MESSAGE``).

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
    People in a who were labelled negative were predicted positive at 5.00× the rate of everyone else
    (false positive rate 50.0 % vs 10.0 %, a difference of 40.0 percentage points; 95 % intervals:
    ratio 2.00–21.48, difference 20.3–58.1 points; 40 vs 40 people who were labelled negative). It
    is the largest false positive rate ratio and difference among the subgroups assessed.
    """
    func = "rate_findings"
    if not isinstance(counts, ConfusionCounts):
        raise ValueError(COUNTS_MESSAGE.format(got=type(counts).__name__))
    metrics = _check_metrics(metrics)
    if isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or limit < 1:
        raise ValueError(LIMIT_MESSAGE.format(got=limit))
    texts = _Texts(func, positive_text, negative_text, positive_outcome_text, negative_outcome_text)
    higher_is_adverse("error_rate", positive_outcome, func)  # validates
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
        f = _disadvantaged_first(f, rate, positive_outcome, func)
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
