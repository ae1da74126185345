"""DeLong's variance of an AUC and its confidence interval, from tie-level histograms.

The AUCs of ``_metrics.auc_ranking`` are counted from one sort of the score column: every score is replaced by
its tie level t (levels in increasing score order), and a set of positives and negatives is
described by its histograms P[t] and N[t]. DeLong's variance needs only the *placement values*
of the examples, and with ties counting one half every example at the same level has the same
placement:

    V10(t) = (N[< t] + N[t] / 2) / n_neg    (a positive at level t: share of negatives it outranks)
    V01(t) = (P[> t] + P[t] / 2) / n_pos    (a negative at level t: share of positives above it)

    AUC = sum_t P[t] V10(t) / n_pos = sum_t N[t] V01(t) / n_neg
    S10 = sum_t P[t] (V10(t) - AUC)^2 / (n_pos - 1)
    S01 = sum_t N[t] (V01(t) - AUC)^2 / (n_neg - 1)
    Var(AUC) = S10 / n_pos + S01 / n_neg

This is Sun & Xu's (2014) fast algorithm (placements from one sort instead of the O(n_pos n_neg)
comparisons of DeLong et al. 1988), written on histograms: the cost is O(levels) array
operations per AUC, no subgroup is sorted on its own, and a stack of histograms of shape
(k, levels) is evaluated at once. ``bias_auc_table`` sums the squared placement deviations
from its runs of rows instead of histograms (:func:`placement_variance`), and both end in
:func:`interval_of`.
"""

from __future__ import annotations

import numpy as np

from .intervals import check_ci, z_value

LEVEL_MESSAGE = (
    "The 'level' parameter of {func} must be a confidence level strictly between 0 and 1, "
    "such as 0.95. Got {got!r} instead."
)
HIST_MESSAGE = (
    "{func}: 'pos_hist' and 'neg_hist' must be arrays of non-negative counts of the same shape "
    "(levels,) or (k, levels). Got shapes {pos} and {neg} instead."
)

UNDEFINED_NOTE = "AUC undefined: {why}"
FALLBACK_NOTE = "{why}: DeLong logit interval unavailable, score interval with the Hanley-McNeil variance used"

_BISECTION_STEPS = 64


def _as_hists(pos_hist, neg_hist, func: str) -> tuple[np.ndarray, np.ndarray]:
    pos = np.asarray(pos_hist, dtype=np.float64)
    neg = np.asarray(neg_hist, dtype=np.float64)
    if pos.shape != neg.shape or pos.ndim not in (1, 2) or np.any(pos < 0) or np.any(neg < 0):
        raise ValueError(HIST_MESSAGE.format(func=func, pos=pos.shape, neg=neg.shape))
    return pos, neg


def _delong(pos: np.ndarray, neg: np.ndarray, pos_sq: np.ndarray | None = None, neg_sq: np.ndarray | None = None):
    """AUC, variance, n_pos, n_neg of histograms of shape (..., levels); NaN where undefined.

    Few passes over the levels and no more temporaries than the two placement arrays:
    N[< t] + N[t] / 2 = cumsum(N)[t] - N[t] / 2 and P[> t] + P[t] / 2 = n_pos - (cumsum(P)[t] - P[t] / 2).
    With `pos_sq`, `neg_sq` (sums of squared sample weights per level; the histograms then hold sums of
    weights) the variance is :func:`weighted_auc_variance`'s and n_pos, n_neg are Kish's effective sizes.
    """
    n_pos = pos.sum(axis=-1)
    n_neg = neg.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        v10 = np.cumsum(neg, axis=-1)
        v10 -= 0.5 * neg
        v10 /= n_neg[..., None]
        v01 = np.cumsum(pos, axis=-1)
        v01 -= 0.5 * pos
        np.subtract(n_pos[..., None], v01, out=v01)
        v01 /= n_pos[..., None]
        auc = np.einsum("...i,...i->...", pos, v10) / n_pos
        auc = np.where((n_pos > 0) & (n_neg > 0), auc, np.nan)
        v10 -= auc[..., None]
        v10 *= v10
        v01 -= auc[..., None]
        v01 *= v01
        if pos_sq is None:
            s10 = np.einsum("...i,...i->...", pos, v10) / (n_pos - 1)
            s01 = np.einsum("...i,...i->...", neg, v01) / (n_neg - 1)
            var = s10 / n_pos + s01 / n_neg
        else:   # squared weights in place of counts, Kish's effective sizes in place of the counts of rows
            w1, w0 = n_pos, n_neg
            n_pos, n_neg = w1 * w1 / pos_sq.sum(axis=-1), w0 * w0 / neg_sq.sum(axis=-1)
            var = (np.einsum("...i,...i->...", pos_sq, v10) / (w1 * w1) * n_pos / (n_pos - 1.0)
                   + np.einsum("...i,...i->...", neg_sq, v01) / (w0 * w0) * n_neg / (n_neg - 1.0))
            n_pos, n_neg = np.nan_to_num(n_pos), np.nan_to_num(n_neg)
    var = np.where((n_pos >= 2) & (n_neg >= 2), var, np.nan)
    return auc, var, n_pos, n_neg


def _scalar_or_array(x: np.ndarray, one: bool):
    return float(x) if one else x


def delong_variance(pos_hist, neg_hist):
    """AUC and DeLong's variance of it, from the counts of positives and negatives per tie level.

    With P[t], N[t] the counts at tie level t (levels in increasing score order), ties counting
    one half, the placement values are V10(t) = (N[< t] + N[t] / 2) / n_neg for a positive and
    V01(t) = (P[> t] + P[t] / 2) / n_pos for a negative, and

        AUC = sum_t P[t] V10(t) / n_pos,
        Var(AUC) = S10 / n_pos + S01 / n_neg,

    where S10 and S01 are the count-weighted sample variances (denominators n_pos - 1 and
    n_neg - 1) of the placement values of the positives and of the negatives. This is DeLong's
    estimator computed as in Sun & Xu (2014) (placements from one sort), on histograms: O(levels).

    Parameters
    ----------
    pos_hist, neg_hist : array-like of non-negative counts, shape (levels,) or (k, levels)
        Positives and negatives per tie level (``_Ranked.hist`` of the positive and the negative
        rows). A 2-D stack evaluates k AUCs at once.

    Returns
    -------
    auc : float, or ndarray of shape (k,)
        The Mann-Whitney AUC (equal to ``sklearn.metrics.roc_auc_score``); NaN when there are no
        positives or no negatives.
    variance : float, or ndarray of shape (k,)
        DeLong's variance; NaN when either side has fewer than 2 examples (a sample variance
        needs two). It is 0 when every positive and every negative has the same placement, e.g.
        at AUC = 0 or 1, or when all scores are tied.

    Raises
    ------
    ValueError
        If the histograms differ in shape, are not 1-D or 2-D, or hold negative counts.

    References
    ----------
    DeLong, E. R., DeLong, D. M. and Clarke-Pearson, D. L. (1988), "Comparing the areas under two
    or more correlated receiver operating characteristic curves: a nonparametric approach",
    Biometrics 44(3), 837-845.
    Sun, X. and Xu, W. (2014), "Fast implementation of DeLong's algorithm for comparing the areas
    under correlated receiver operating characteristic curves", IEEE Signal Processing Letters
    21(11), 1389-1393.

    Examples
    --------
    >>> auc, var = delong_variance([0, 1, 2], [2, 1, 0])   # scores 0 < 1 < 2, tie at level 1
    >>> round(auc, 4), round(var, 4)
    (0.9444, 0.0062)
    """
    pos, neg = _as_hists(pos_hist, neg_hist, "delong_variance")
    auc, var, _, _ = _delong(pos, neg)
    one = pos.ndim == 1
    return _scalar_or_array(auc, one), _scalar_or_array(var, one)


def _hanley_mcneil(theta: np.ndarray, n_pos: np.ndarray, n_neg: np.ndarray) -> np.ndarray:
    """Hanley & McNeil's (1982) variance of an AUC whose true value is `theta`."""
    return theta * (1.0 - theta) / (n_pos * n_neg) * (
        1.0 + (n_pos - 1.0) * (1.0 - theta) / (2.0 - theta) + (n_neg - 1.0) * theta / (1.0 + theta))


def _score_interval(auc, n_pos, n_neg, z):
    """{theta : (auc - theta)^2 <= z^2 HM(theta)}, found by vectorised bisection on each side."""
    def excess(theta):
        return (auc - theta) ** 2 - z * z * _hanley_mcneil(theta, n_pos, n_neg)

    lo, hi = np.zeros_like(auc), auc.copy()          # lower bound in [0, auc]: excess(0) >= 0
    for _ in range(_BISECTION_STEPS):
        mid = 0.5 * (lo + hi)
        outside = excess(mid) > 0
        lo, hi = np.where(outside, mid, lo), np.where(outside, hi, mid)
    low = hi
    lo, hi = auc.copy(), np.ones_like(auc)           # upper bound in [auc, 1]: excess(1) >= 0
    for _ in range(_BISECTION_STEPS):
        mid = 0.5 * (lo + hi)
        outside = excess(mid) > 0
        lo, hi = np.where(outside, lo, mid), np.where(outside, mid, hi)
    return low, lo


def _check_level(level, func: str) -> float:
    try:
        checked = check_ci(level, func)
    except ValueError:
        checked = None
    if checked is None:
        raise ValueError(LEVEL_MESSAGE.format(func=func, got=level))
    return checked


def auc_interval(pos_hist, neg_hist, level: float):
    """Confidence interval of an AUC: DeLong's variance, Wald interval on the logit scale.

    With A the AUC and V its DeLong variance (:func:`delong_variance`), the delta method gives
    se_logit = sqrt(V) / (A (1 - A)), and the interval is

        expit(logit(A) -/+ z * se_logit),   z = norm.ppf(1 - (1 - level) / 2),

    which always lies in (0, 1) and contains A.

    Where that interval cannot be formed, the result says so in its note:

    - no positive (or no negative) examples: the AUC is undefined; the bounds are NaN and the
      note is ``"AUC undefined: no positive examples"`` (or ``"no negative examples"``,
      ``"no rows"``);
    - A = 0 or 1 (logit infinite, DeLong variance 0), a side with a single example (DeLong
      variance undefined), or a DeLong variance of 0 (e.g. all scores tied): a DeLong interval
      would be a single point, which claims certainty that tiny samples do not give. Instead the
      bounds are the score-type interval {theta : (A - theta)^2 <= z^2 HM(theta)} with Hanley &
      McNeil's variance of an AUC equal to theta,
      HM(theta) = theta (1 - theta) / (n_pos n_neg) * (1 + (n_pos - 1)(1 - theta)/(2 - theta)
      + (n_neg - 1) theta/(1 + theta)) (the idea of Newcombe's (2006) score-type intervals, here
      with the unmodified Hanley-McNeil variance). It lies in [0, 1], contains A and is never a
      point (e.g. A = 1 with 3 positives and 15 negatives gives about [0.63, 1] at 95 %). The note
      names the reason, e.g. ``"AUC = 1: DeLong logit interval unavailable, score interval with
      the Hanley-McNeil variance used"``.

    Parameters
    ----------
    pos_hist, neg_hist : array-like of non-negative counts, shape (levels,) or (k, levels)
        Positives and negatives per tie level, levels in increasing score order.
    level : float in (0, 1)
        Confidence level, e.g. 0.95.

    Returns
    -------
    low, high : float, or ndarray of shape (k,)
        The bounds, in [0, 1]; NaN where the AUC is undefined.
    note : str, or ndarray of str (object) of shape (k,)
        Empty for the DeLong logit interval, otherwise what was done and why.

    Raises
    ------
    ValueError
        If `level` is not a number strictly between 0 and 1 (``LEVEL_MESSAGE``), or the
        histograms are malformed (``HIST_MESSAGE``).

    References
    ----------
    DeLong, DeLong and Clarke-Pearson (1988), Biometrics 44(3), 837-845.
    Sun and Xu (2014), IEEE Signal Processing Letters 21(11), 1389-1393.
    Hanley, J. A. and McNeil, B. J. (1982), "The meaning and use of the area under a receiver
    operating characteristic (ROC) curve", Radiology 143(1), 29-36.
    Newcombe, R. G. (2006), "Confidence intervals for an effect size measure based on the
    Mann-Whitney statistic. Part 2: asymptotic methods and evaluation", Statistics in Medicine
    25(4), 559-573.

    Examples
    --------
    >>> low, high, note = auc_interval([0, 1, 2, 3], [3, 2, 1, 0], 0.95)
    >>> round(low, 4), round(high, 4), note
    (0.619, 0.9867, '')
    >>> low, high, note = auc_interval([0, 0, 3], [15, 0, 0], 0.95)
    >>> round(low, 2), high, note.split(":")[0]
    (0.63, 1.0, 'AUC = 1')
    >>> auc_interval([0, 0], [2, 1], 0.95)[2]
    'AUC undefined: no positive examples'
    """
    func = "auc_interval"
    level = _check_level(level, func)
    pos, neg = _as_hists(pos_hist, neg_hist, func)
    one = pos.ndim == 1
    auc, var, n_pos, n_neg = _delong(np.atleast_2d(pos), np.atleast_2d(neg))
    low, high, note = interval_of(auc, var, n_pos, n_neg, level)
    if one:
        return float(low[0]), float(high[0]), str(note[0])
    return low, high, note


def placement_variance(s10: np.ndarray, s01: np.ndarray, n_pos: np.ndarray, n_neg: np.ndarray) -> np.ndarray:
    """DeLong's variance from the sums of squared placement deviations of positives and negatives.

    With ``s10 = sum over positives (V10 - AUC)^2`` and ``s01`` likewise over the negatives,
    Var = s10 / ((n_pos - 1) n_pos) + s01 / ((n_neg - 1) n_neg); NaN where a side has fewer
    than 2 examples (as :func:`delong_variance`).
    """
    n_pos = np.asarray(n_pos, dtype=np.float64)
    n_neg = np.asarray(n_neg, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        var = s10 / (n_pos - 1) / n_pos + s01 / (n_neg - 1) / n_neg
    return np.where((n_pos >= 2) & (n_neg >= 2), var, np.nan)


def weighted_auc_variance(pos: np.ndarray, neg: np.ndarray, pos_sq: np.ndarray, neg_sq: np.ndarray):
    """The weighted AUCs of histograms of weights per level, their linearized (DeLong) variances and the two sides'
    effective sizes.

    With W₁, W₀ the positives' and negatives' sums of weights, a positive at level l has the placement
    V10(l) = (W₀ below l + ½ W₀ at l) / W₀ and a negative V01(l) = (W₁ above l + ½ W₁ at l) / W₁; the weighted
    AUC is A = Σ_l W₁(l) V10(l) / W₁ and its variance, from its linearization (the weighted form of DeLong's
    structural components),

        Var = n₁* / (n₁* - 1) Σ_l S₁(l) (V10(l) - A)² / W₁² + n₀* / (n₀* - 1) Σ_l S₀(l) (V01(l) - A)² / W₀²,

    with S₁(l), S₀(l) the sums of squared weights at level l and n* = W² / Σ S Kish's effective sizes (the
    factor makes unit weights give DeLong's variance exactly).

    Parameters
    ----------
    pos, neg, pos_sq, neg_sq : ndarray of shape (k, n_levels)
        Sums of weights and of squared weights of the positives and negatives per level, levels in increasing
        score order.

    Returns
    -------
    auc, var, n_pos, n_neg : ndarray of shape (k,)
        NaN AUC where a side has no weight, NaN variance where a side's effective size is below 2.
    """
    return _delong(*(np.asarray(h, dtype=np.float64) for h in (pos, neg, pos_sq, neg_sq)))


def interval_of(auc: np.ndarray, var: np.ndarray, n_pos: np.ndarray, n_neg: np.ndarray, level: float):
    """The bounds and notes of :func:`auc_interval` from AUCs, DeLong variances and class counts.

    All arrays have shape (k,); `auc` is NaN where a side is empty, `var` NaN where a side has
    fewer than 2 examples. Returns ``(low, high, note)`` arrays of shape (k,).
    """
    auc = np.asarray(auc, dtype=np.float64)
    var = np.asarray(var, dtype=np.float64)
    n_pos = np.asarray(n_pos, dtype=np.float64)
    n_neg = np.asarray(n_neg, dtype=np.float64)
    z = z_value(level)

    low = np.full(auc.shape, np.nan)
    high = np.full(auc.shape, np.nan)
    note = np.full(auc.shape, "", dtype=object)

    defined = (n_pos > 0) & (n_neg > 0)
    regular = defined & (auc > 0) & (auc < 1) & np.isfinite(var) & (var > 0)
    if regular.any():
        a = auc[regular]
        se_logit = np.sqrt(var[regular]) / (a * (1.0 - a))
        centre = np.log(a) - np.log1p(-a)
        low[regular] = 1.0 / (1.0 + np.exp(-(centre - z * se_logit)))
        high[regular] = 1.0 / (1.0 + np.exp(-(centre + z * se_logit)))

    fallback = defined & ~regular
    if fallback.any():
        low[fallback], high[fallback] = _score_interval(auc[fallback], n_pos[fallback], n_neg[fallback], z)
        for i in np.flatnonzero(fallback):
            if auc[i] == 1.0 or auc[i] == 0.0:
                why = f"AUC = {auc[i]:g}"
            elif n_pos[i] < 2:
                why = "only 1 positive example"
            elif n_neg[i] < 2:
                why = "only 1 negative example"
            else:
                why = "DeLong variance is 0 (all examples have the same placement, e.g. all scores tied)"
            note[i] = FALLBACK_NOTE.format(why=why)

    for i in np.flatnonzero(~defined):
        why = "no rows" if n_pos[i] == 0 and n_neg[i] == 0 else (
            "no positive examples" if n_pos[i] == 0 else "no negative examples")
        note[i] = UNDEFINED_NOTE.format(why=why)
    return low, high, note
