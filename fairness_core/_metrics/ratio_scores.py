"""scikit-lego style fairness scores (scikit-lego): p% score, equal opportunity score, correlation score.

Higher is better for all three. The two ratio scores compare a rate in two groups as
min(r1 / r0, r0 / r1), so 1 is parity and 0 means one group never gets the outcome; they are
computed from confusion counts per group (one bincount), like every rate in :mod:`fairness_core._metrics.rates`. Every
subgroup's score against the rest is ``ConfusionCounts.ratio_scores`` (:mod:`fairness_core._counts`), whose rule
``ratio_rule`` and result ``RatioScoresResult`` are in :mod:`fairness_core._disparity.compare`.
The correlation score's interval (``ci=``) is Fisher's z interval of Pearson's r mapped through
r -> -|r|; no bootstrap is needed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

# RatioScoresResult and the notes are re-exported here (the tests import them from this module).
from .._disparity.compare import BOTH_ZERO_NOTE, ONE_ZERO_NOTE, RatioScoresResult, join_notes, ratio_rule  # noqa: F401
from .._counts.rates import FN, FP, TN, TP, _rate
from .._counts.weights import check_no_intervals, check_sample_weight, effective_size
from .._stats.intervals import check_ci
from .._stats.result import ValueResult

SENSITIVE_MESSAGE = (
    "The 'sensitive' parameter of {func} must be a binary attribute holding only 0 and 1 (or False "
    "and True). Got the values {got} instead. Tip: map a two-valued attribute first, e.g. "
    "(sex == 'Female'); for an attribute with more values, compare each subgroup with the rest: "
    "fairness_core.confusion_counts(y_true, y_pred, subgroups).ratio_scores({rate!r}) gives every "
    "subgroup's score and their minimum."
)
PAIR_LENGTH_MESSAGE = (
    "{func}: '{param}' has {got} rows but '{other}' has {expected}. "
    "Tip: pass arrays that describe the same rows, in the same order."
)
CORRELATION_TYPE_MESSAGE = (
    "The '{param}' parameter of correlation_score must be numeric or boolean. Got dtype {dtype} "
    "instead. Tip: encode a two-valued attribute as 0/1, e.g. (sex == 'Female'); for a categorical "
    "attribute with more values, use the p% score of each subgroup against the rest "
    "(fairness_core.confusion_counts(...).ratio_scores('selection_rate'))."
)
CORRELATION_VALUE_MESSAGE = (
    "The '{param}' parameter of correlation_score must hold finite numbers. Got {got} missing or "
    "infinite values. Tip: drop or impute those rows first."
)


@dataclass(frozen=True)
class RatioScoreResult(ValueResult):
    """A ratio score of two groups (p% or equal opportunity score) and the rates behind it.

    Attributes
    ----------
    value : float
        min(rate_1 / rate_0, rate_0 / rate_1) in [0, 1]; 1.0 when both rates are 0, 0.0 when
        exactly one is; NaN when a side is empty (see ``note``).
    rate : {'selection_rate', 'true_positive_rate'}
        The rate compared: positive-prediction rate (p% score) or true positive rate (equal
        opportunity score).
    rate_0, rate_1 : float
        The rate in the group with ``sensitive == 0`` and ``sensitive == 1`` (NaN when empty).
    size_0, size_1 : int (float: effective sample sizes with sample weights)
        The rows each rate is computed on: all rows of the group for the p% score, the group's
        rows with ``y_true == positive_target`` for the equal opportunity score.
    note : str
        Why the value is NaN, 0 or 1 by rule; empty otherwise.
    """

    value: float
    rate: str
    rate_0: float
    rate_1: float
    size_0: int
    size_1: int
    note: str


def _binary_sensitive(sensitive, n: int, func: str, rate: str, other: str) -> np.ndarray:
    arr = np.asarray(sensitive)
    if arr.ndim != 1:
        arr = arr.reshape(-1)
    if len(arr) != n:
        raise ValueError(PAIR_LENGTH_MESSAGE.format(func=func, param="sensitive", got=len(arr), other=other,
                                                    expected=n))
    if arr.dtype == bool:
        return arr.astype(np.intp)
    ok = arr.dtype.kind in "biuf" and bool(np.isin(arr, [0, 1]).all())
    if not ok:
        values = pd.unique(pd.Series(arr, dtype=object))
        shown = ", ".join(repr(v) for v in values[:6].tolist()) + (", ..." if len(values) > 6 else "")
        raise ValueError(SENSITIVE_MESSAGE.format(func=func, got=shown, rate=rate))
    return arr.astype(np.intp)


def _ratio_score(y_true, y_pred, sensitive, positive_target, rate: str, func: str,
                 sample_weight=None) -> RatioScoreResult:
    pred = np.asarray(y_pred).reshape(-1) == positive_target
    if y_true is None:
        truth = np.zeros(len(pred), dtype=bool)
    else:
        truth = np.asarray(y_true).reshape(-1) == positive_target
        if len(truth) != len(pred):
            raise ValueError(PAIR_LENGTH_MESSAGE.format(func=func, param="y_pred", got=len(pred), other="y_true",
                                                        expected=len(truth)))
    s = _binary_sensitive(sensitive, len(pred), func, rate, "y_pred")
    cell = 2 * truth.astype(np.intp) + pred.astype(np.intp)
    w = check_sample_weight(sample_weight, len(pred), func)
    counts = np.bincount(4 * s + cell, weights=w, minlength=8).reshape(2, 4).astype(np.float64)  # (group, TN FP FN TP)
    rates, rate_notes = _rate(counts, rate)
    value, notes = ratio_rule(rates[0], rates[1], rate)
    cells = [TN, FP, FN, TP] if rate == "selection_rate" else [TP, FN]
    sizes = counts[:, cells].sum(axis=1)
    if w is not None:   # effective sample sizes of the rows each rate rests on
        squares = np.bincount(4 * s + cell, weights=w * w, minlength=8).reshape(2, 4)
        sizes = effective_size(sizes, squares[:, cells].sum(axis=1))
    note = join_notes(*(f"sensitive == {g}: {rate_notes[g]}" for g in (0, 1) if rate_notes[g]), notes.item())
    as_size = int if w is None else float
    return RatioScoreResult(value=float(value), rate=rate, rate_0=float(rates[0]), rate_1=float(rates[1]),
                            size_0=as_size(sizes[0]), size_1=as_size(sizes[1]), note=note)


def p_percent_score(y_pred, sensitive, *, positive_target=1, sample_weight=None) -> RatioScoreResult:
    """p% score: the smaller ratio of the positive-prediction rates of the two groups.

    With r1 = P(y_pred = positive_target | sensitive = 1) and r0 the same for sensitive = 0:
    score = min(r1 / r0, r0 / r1), in [0, 1]; 1 is parity (statistical parity / the "80% rule"
    asks for score >= 0.8). Both rates 0 gives 1.0 (no disparity, noted); exactly one rate 0
    gives 0.0; an empty group gives NaN (noted).

    Parameters
    ----------
    y_pred : array-like of shape (n_samples,)
        Predicted labels (any values); a row is a positive prediction when it equals
        `positive_target`.
    sensitive : array-like of shape (n_samples,)
        The binary sensitive attribute: 0/1 or False/True.
    positive_target : scalar, default=1
        The label of the positive outcome.
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Finite weights >= 0, one per row: the rates are weighted (sums of the rows' weights) and
        ``size_0, size_1`` are Kish's effective sample sizes (sum w)^2 / sum w^2 (floats).

    Returns
    -------
    RatioScoreResult
        ``.value`` is the score; ``rate_0, rate_1`` the two selection rates, ``size_0, size_1``
        the two group sizes, ``note`` the reason for a rule-based or NaN value.

    Raises
    ------
    ValueError
        If `sensitive` holds values other than 0/1 (``SENSITIVE_MESSAGE``; for many-valued
        attributes use ``ConfusionCounts.ratio_scores('selection_rate')``), or the lengths differ.

    Notes
    -----
    scikit-lego's code returns 0 (with a "No samples with y_hat == ..." warning) as soon
    as either rate is 0, so both rates 0 give 0 there; here both rates 0 give 1.0 with a note, since
    the two groups are treated alike. Exactly one rate 0 gives 0.0 in both. For an empty group
    scikit-lego's rate is the mean of an empty slice (NaN, with numpy's warning), the ratio is NaN
    and it returns 1; that says "parity" about a comparison that cannot be made, so we return NaN
    with a note instead.

    References
    ----------
    Zafar et al. (2017), "Fairness Constraints: Mechanisms for Fair Classification", AISTATS;
    scikit-lego ``p_percent_score``.

    Examples
    --------
    Group 0 gets 1 positive prediction in 2 rows, group 1 gets 1 in 4: min(0.25/0.5, 0.5/0.25).

    >>> p_percent_score([1, 0, 1, 0, 0, 0], [0, 0, 1, 1, 1, 1]).value
    0.5
    """
    return _ratio_score(None, y_pred, sensitive, positive_target, "selection_rate", "p_percent_score",
                        sample_weight)


def equal_opportunity_score(y_true, y_pred, sensitive, *, positive_target=1, sample_weight=None) -> RatioScoreResult:
    """Equal opportunity score: the smaller ratio of the true positive rates of the two groups.

    On the rows with y_true = positive_target: r_z = P(y_pred = positive_target | sensitive = z),
    score = min(r1 / r0, r0 / r1), in [0, 1]; 1 is parity. Both rates 0 gives 1.0 (no disparity,
    noted); exactly one 0 gives 0.0; a group without positive examples gives NaN (noted).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels (any values); `positive_target` marks the positive class.
    y_pred : array-like of shape (n_samples,)
        Predicted labels, compared with `positive_target` too.
    sensitive : array-like of shape (n_samples,)
        The binary sensitive attribute: 0/1 or False/True.
    positive_target : scalar, default=1
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Finite weights >= 0, one per row: the rates are weighted (sums of the rows' weights) and
        ``size_0, size_1`` are Kish's effective sample sizes (sum w)^2 / sum w^2 (floats).

    Returns
    -------
    RatioScoreResult
        ``.value`` is the score; ``rate_0, rate_1`` the two true positive rates and
        ``size_0, size_1`` the positive examples in each group.

    Raises
    ------
    ValueError
        If `sensitive` is not 0/1 (``SENSITIVE_MESSAGE``; for many-valued attributes use
        ``ConfusionCounts.ratio_scores('true_positive_rate')``), or the lengths differ.

    Notes
    -----
    scikit-lego returns 0 (with a warning) when a group has no positive examples; we return NaN
    with a note, since the rate is undefined there.

    References
    ----------
    Hardt, Price and Srebro (2016), "Equality of Opportunity in Supervised Learning", NeurIPS;
    scikit-lego ``equal_opportunity_score``.

    Examples
    --------
    >>> r = equal_opportunity_score([1, 1, 1, 1, 0], [1, 0, 1, 1, 1], [0, 0, 1, 1, 1])
    >>> r.value, r.rate_0, r.rate_1
    (0.5, 0.5, 1.0)
    """
    return _ratio_score(y_true, y_pred, sensitive, positive_target, "true_positive_rate",
                        "equal_opportunity_score", sample_weight)


def _numeric(values, param: str) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim != 1:
        arr = arr.reshape(-1)
    if arr.dtype == bool:
        return arr.astype(np.float64)
    if arr.dtype.kind not in "biuf":
        raise TypeError(CORRELATION_TYPE_MESSAGE.format(param=param, dtype=arr.dtype))
    arr = arr.astype(np.float64)
    bad = int((~np.isfinite(arr)).sum())
    if bad:
        raise ValueError(CORRELATION_VALUE_MESSAGE.format(param=param, got=bad))
    return arr


@dataclass(frozen=True)
class CorrelationScoreResult(ValueResult):
    """A correlation score -|r| with Fisher's z interval, from :func:`correlation_score` with ``ci``.

    Attributes
    ----------
    value : float
        -|r| in [-1, 0] (NaN when either input is constant or has fewer than two rows).
    r : float
        Pearson's r itself (its sign says the direction of the association).
    r_ci_low, r_ci_high : float
        Fisher's z interval of r (``scipy.stats.pearsonr(...).confidence_interval``):
        tanh(atanh(r) -/+ z / sqrt(n - 3)), z = ``norm.ppf(1 - (1 - level) / 2)``; [-1, 1] when
        n <= 3; NaN with `value`.
    ci_low, ci_high : float
        The interval of -|r| mapped from r's: [-max(|lo|, |hi|), 0] when r's interval contains 0,
        otherwise [-max(|lo|, |hi|), -min(|lo|, |hi|)].
    level : float
        Confidence level.
    n : int
        Rows the correlation is computed on.
    """

    value: float
    r: float
    r_ci_low: float
    r_ci_high: float
    ci_low: float
    ci_high: float
    level: float
    n: int


def score_interval(r_low, r_high) -> tuple[np.ndarray, np.ndarray]:
    """The interval of -|r| from an interval [r_low, r_high] of r (elementwise; NaN stays NaN).

    -|r| is largest (0) at r = 0 and smallest at the end farthest from 0, so the image of
    [lo, hi] is [-max(|lo|, |hi|), 0] when lo <= 0 <= hi and [-max(|lo|, |hi|), -min(|lo|, |hi|)]
    otherwise.
    """
    r_low, r_high = np.asarray(r_low, dtype=np.float64), np.asarray(r_high, dtype=np.float64)
    far = np.fmax(np.abs(r_low), np.abs(r_high))
    near = np.where((r_low <= 0) & (r_high >= 0), 0.0, np.fmin(np.abs(r_low), np.abs(r_high)))
    undefined = np.isnan(r_low) | np.isnan(r_high)
    return np.where(undefined, np.nan, 0.0 - far), np.where(undefined, np.nan, 0.0 - near)  # no -0.0


def _weighted_correlation_score(x: np.ndarray, z: np.ndarray, w: np.ndarray) -> float:
    """-|r| of the weighted Pearson correlation; NaN when either input is constant on the rows of weight > 0."""
    keep = w > 0
    x, z, w = x[keep], z[keep], w[keep]
    if len(x) < 2 or x.min() == x.max() or z.min() == z.max():
        return float("nan")
    x, z = (v / np.abs(v).max() if not 1e-150 < np.abs(v).max() < 1e150 else v for v in (x, z))
    dx, dz = x - np.average(x, weights=w), z - np.average(z, weights=w)
    sxx, szz, sxz = (float(np.sum(w * a * b)) for a, b in ((dx, dx), (dz, dz), (dx, dz)))
    if not (sxx > 0 and szz > 0):
        return float("nan")
    r = float(np.clip(sxz / np.sqrt(sxx * szz), -1.0, 1.0))
    r = float(np.sign(r)) if abs(abs(r) - 1.0) < 1e-12 else r
    return 0.0 - abs(r)


def correlation_score(y_pred_or_score, column, *, ci=None, sample_weight=None):
    """Correlation score: minus the absolute Pearson correlation of the predictions with a column.

    score = -|r|, r = cov(x, z) / (sd(x) sd(z)), with x the predictions (or scores) and z the
    column. 0 is best (no linear dependence); -1 is worst. Higher is better, so it can be
    maximised directly (e.g. as a scikit-learn score).

    Parameters
    ----------
    y_pred_or_score : array-like of shape (n_samples,)
        Numeric predictions or scores (bool is read as 0/1).
    column : array-like of shape (n_samples,)
        A numeric or boolean attribute (bool is read as 0/1).
    ci : float in (0, 1) or None, default=None
        Confidence level of an interval. r gets Fisher's z interval
        tanh(atanh(r) -/+ z / sqrt(n - 3)), z = ``scipy.stats.norm.ppf(1 - (1 - ci) / 2)``
        (``scipy.stats.pearsonr(x, z).confidence_interval(ci)``; [-1, 1] when n <= 3), and the
        score's interval is its image under r -> -|r|: [-max(|lo|, |hi|), 0] when r's interval
        contains 0, else [-max(|lo|, |hi|), -min(|lo|, |hi|)]. Fisher's interval assumes roughly
        bivariate normal data; with binary predictions it is an approximation.
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Finite weights >= 0, one per row: r is the weighted Pearson correlation
        sum w (x - mx)(z - mz) / sqrt(sum w (x - mx)^2 sum w (z - mz)^2) with weighted means mx, mz
        (``numpy.cov(..., aweights=w)``); rows of weight 0 take no part. Not together with `ci`.

    Returns
    -------
    float, or CorrelationScoreResult when `ci` is given
        In [-1, 0]: -1 for perfectly correlated (or anti-correlated) inputs, at any scale (the
        inputs are scaled before r is computed, so values near 1e200 or 1e-300 neither overflow
        nor underflow); NaN when either input is constant (or has fewer than two rows), where the
        correlation is undefined. With `ci`, a :class:`CorrelationScoreResult` (``value, r,
        r_ci_low, r_ci_high, ci_low, ci_high, level, n``; ``float(result)`` is the score); the
        float return without `ci` is kept for backward compatibility.

    Raises
    ------
    TypeError
        If an input is not numeric or boolean (``CORRELATION_TYPE_MESSAGE``).
    ValueError
        If an input has missing or infinite values, the lengths differ, `ci` is not in (0, 1), a
        weight is bad, or `ci` comes with weights.

    References
    ----------
    scikit-lego ``correlation_score``; Fisher, R. A. (1921), "On the 'probable error'
    of a coefficient of correlation deduced from a small sample", Metron 1, 3-32.

    Examples
    --------
    >>> correlation_score([1, 0, 1, 0], [True, False, True, False])
    -1.0
    >>> r = correlation_score([1, 0, 1, 0, 1, 1], [3.0, 1.0, 2.0, 2.0, 1.0, 4.0], ci=0.95)
    >>> round(r.value, 4), r.ci_high, r.ci_low >= -1
    (-0.4417, 0.0, True)
    """
    level = check_ci(ci, "correlation_score")
    x = _numeric(y_pred_or_score, "y_pred_or_score")
    z = _numeric(column, "column")
    if len(z) != len(x):
        raise ValueError(PAIR_LENGTH_MESSAGE.format(func="correlation_score", param="column", got=len(z),
                                                    other="y_pred_or_score", expected=len(x)))
    if sample_weight is not None:
        check_no_intervals(True, level, "correlation_score")
        return _weighted_correlation_score(x, z, check_sample_weight(sample_weight, len(x), "correlation_score"))
    if len(x) < 2 or x.min() == x.max() or z.min() == z.max():   # (np.ptp would overflow near +-1e308)
        if level is None:
            return float("nan")
        nan = float("nan")
        return CorrelationScoreResult(nan, nan, nan, nan, nan, nan, level, len(x))
    # r does not change when a column is scaled: a column of extreme size is scaled to at most 1, so its squares
    # neither overflow (scores near 1e200) nor underflow (near 1e-300) and r stays a number wherever it is defined
    # (ordinary columns are left as they are, so r keeps its exact value, -1.0 for [1, 2, 3] against [3, 2, 1]).
    x, z = (v / np.abs(v).max() if not 1e-150 < np.abs(v).max() < 1e150 else v for v in (x, z))
    r = float(np.clip(np.corrcoef(x, z)[0, 1], -1.0, 1.0))
    r = float(np.sign(r)) if abs(abs(r) - 1.0) < 1e-12 else r   # perfectly (anti-)correlated: exactly +-1
    if level is None:
        return 0.0 - abs(r)
    from scipy.stats import pearsonr

    r_low, r_high = pearsonr(x, z).confidence_interval(confidence_level=level)
    low, high = score_interval(r_low, r_high)
    return CorrelationScoreResult(value=0.0 - abs(r), r=r, r_ci_low=float(r_low), r_ci_high=float(r_high),
                                  ci_low=float(low), ci_high=float(high), level=level, n=len(x))
