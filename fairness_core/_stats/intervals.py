"""Confidence intervals of single estimates: the level check, the normal quantile, Wilson's interval,
and the MOVER interval of a disparity of two proportions built from their Wilson intervals.

Composite numbers (power means, disparities, ECE, ...) get bootstrap intervals instead; see
``_stats.bootstrap``. DeLong intervals of AUCs are in ``_stats.delong``.
"""

from __future__ import annotations

import numpy as np

CI_MESSAGE = (
    "The 'ci' parameter of {func} must be None or a confidence level strictly between 0 and 1, "
    "such as 0.95. Got {got!r} instead."
)


def check_ci(ci, func: str) -> float | None:
    """Return `ci` as a float level in (0, 1), or None; raise ValueError (``CI_MESSAGE``) otherwise."""
    if ci is None:
        return None
    if isinstance(ci, bool) or not isinstance(ci, (int, float, np.integer, np.floating)) or not 0.0 < float(ci) < 1.0:
        raise ValueError(CI_MESSAGE.format(func=func, got=ci))
    return float(ci)


def z_value(level: float) -> float:
    """Two-sided normal quantile z = ``scipy.stats.norm.ppf(1 - (1 - level) / 2)`` (1.96 for 0.95)."""
    from scipy.special import ndtri  # the normal quantile without norm.ppf's argument checks; scipy on first use
    return float(ndtri(1.0 - (1.0 - level) / 2.0))


def wilson_interval(successes, trials, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of a proportion k / n.

    centre = (k + z²/2) / (n + z²),  half-width = z / (n + z²) · sqrt(k (n - k) / n + z² / 4),

    with z the two-sided normal quantile of `level`. The bounds always lie in [0, 1] and the
    interval is never empty at k = 0 or k = n, unlike the Wald interval.

    Parameters
    ----------
    successes, trials : array-like of shape (n,) or scalars
        Counts k and n, with 0 <= k <= n. Where n = 0 the interval is NaN.
    level : float in (0, 1)
        Confidence level, e.g. 0.95.

    Returns
    -------
    low, high : ndarray of float, shape (n,)

    References
    ----------
    Wilson, E. B. (1927), "Probable inference, the law of succession, and statistical inference",
    JASA 22(158). Equal to ``statsmodels.stats.proportion.proportion_confint(method="wilson")``.

    Examples
    --------
    >>> low, high = wilson_interval(3, 10, 0.95)
    >>> round(float(low), 4), round(float(high), 4)
    (0.1078, 0.6032)
    """
    return _wilson(successes, trials, z_value(level))


def weighted_wilson_interval(successes, trials, successes_sq, failures_sq, level: float,
                             rows=None) -> tuple[np.ndarray, np.ndarray]:
    """Wilson's interval of a weighted proportion p̂ = (Σ w over successes) / (Σ w), on its effective sample size.

    With S₁ and S₀ the sums of squared weights of the successes and the failures, the linearized
    variance of the ratio estimator p̂ and the effective sample size it implies are

        v̂ = ((1 - p̂)² S₁ + p̂² S₀) / (Σ w)²,     n* = p̂ (1 - p̂) / v̂,

    and the interval is :func:`wilson_interval` of k = p̂ n* successes in n* trials (Korn & Graubard
    1998 take this effective n for survey proportions). Where p̂ is 0 or 1 (v̂ = 0) n* is Kish's
    (Σ w)² / (S₁ + S₀). Given the number of `rows` behind `trials`, n* is at most that number (Korn &
    Graubard's truncation of the design effect at 1): a rare outcome whose few successes have small
    weights makes v̂ small and n* larger than the rows, and the interval then under-covered (a
    reliability bin of 30 rows at a rate of 0.1: 89.8 % at 95 %, 97.0 % truncated). With unit weights
    n* is the number of rows and the interval is Wilson's.

    Parameters
    ----------
    successes, trials : array-like of shape (n,) or scalars
        Σ w over the successes and over every row (0 <= successes <= trials). NaN where trials is 0.
    successes_sq, failures_sq : array-like of shape (n,) or scalars
        S₁ and S₀.
    level : float in (0, 1)
    rows : array-like of shape (n,), scalar or None, default=None
        The rows of weight > 0 behind `trials`: n* is truncated at it. None: no truncation.

    Returns
    -------
    low, high : ndarray of float, shape (n,)

    References
    ----------
    Korn, E. L. & Graubard, B. I. (1998), "Confidence intervals for proportions with small expected
    number of positive counts estimated from survey data", Survey Methodology 24(2), 193-201.
    Kish, L. (1965), *Survey Sampling*, Wiley (the effective sample size).

    Examples
    --------
    >>> low, high = weighted_wilson_interval(3, 10, 3, 7, 0.95)   # unit weights: Wilson's interval of 3 / 10
    >>> round(float(low), 4), round(float(high), 4)
    (0.1078, 0.6032)
    """
    return _wilson(*effective_counts(successes, trials, successes_sq, failures_sq, rows), z_value(level))


def effective_counts(successes, trials, successes_sq, failures_sq, rows=None) -> tuple[np.ndarray, np.ndarray]:
    """(p̂ n*, n*): a weighted proportion as successes among trials of equal weight, on the effective sample
    size n* of :func:`weighted_wilson_interval` (what its Wilson interval, and the MOVER interval of a disparity
    of two weighted rates, are computed from), n* at most `rows` when it is given. Both 0 where `trials` is 0."""
    w1, w = np.asarray(successes, dtype=np.float64), np.asarray(trials, dtype=np.float64)
    s1, s0 = np.asarray(successes_sq, dtype=np.float64), np.asarray(failures_sq, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(w > 0, w1 / np.where(w > 0, w, 1.0), 0.0)
        variance_sum = (1.0 - p) ** 2 * s1 + p ** 2 * s0                # (Σ w)² v̂
        inner = (p > 0) & (p < 1) & (variance_sum > 0)
        n_star = np.where(inner, p * (1.0 - p) * w * w / np.where(inner, variance_sum, 1.0),
                          np.where(s1 + s0 > 0, w * w / np.where(s1 + s0 > 0, s1 + s0, 1.0), 0.0))
    n_star = np.where(w > 0, n_star, 0.0)
    if rows is not None:   # Korn & Graubard: a design effect below 1 counts as 1
        n_star = np.minimum(n_star, np.asarray(rows, dtype=np.float64))
    return p * n_star, n_star


def _wilson(successes, trials, z) -> tuple[np.ndarray, np.ndarray]:
    """:func:`wilson_interval` at normal quantile(s) `z` (a scalar, or an array broadcast with the counts)."""
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    z = np.asarray(z, dtype=np.float64)
    z2 = z * z
    with np.errstate(divide="ignore", invalid="ignore"):
        centre = (k + z2 / 2.0) / (n + z2)
        half = z / (n + z2) * np.sqrt(np.maximum(k * (n - k) / n, 0.0) + z2 / 4.0)
        low = np.where(n > 0, np.clip(centre - half, 0.0, 1.0), np.nan)
        high = np.where(n > 0, np.clip(centre + half, 0.0, 1.0), np.nan)
    # Exact ends: the bound at k = 0 (or k = n) is 0 (or 1), without rounding error.
    low = np.where((n > 0) & (k == 0), 0.0, low)
    high = np.where((n > 0) & (k == n), 1.0, high)
    return low, high


PARITY_OF = {"diff": 0.0, "ratio": 1.0}


class _WilsonSides:
    """Both sides' counts for :func:`_wilson` at many quantiles, stacked on a leading axis of 2 (one evaluation
    of the two sides), with what does not depend on z computed once."""

    __slots__ = ("k", "n", "spread", "defined", "at_zero", "at_all", "shape")

    def __init__(self, k1: np.ndarray, n1: np.ndarray, k2: np.ndarray, n2: np.ndarray) -> None:
        k1, n1, k2, n2 = np.broadcast_arrays(k1, n1, k2, n2)
        self.shape = k1.shape
        k, n = self.k, self.n = np.stack([k1, k2]), np.stack([n1, n2])
        with np.errstate(divide="ignore", invalid="ignore"):
            self.spread = np.maximum(k * (n - k) / n, 0.0)
        self.defined = n > 0
        self.at_zero, self.at_all = self.defined & (k == 0), self.defined & (k == n)

    def bounds(self, z: np.ndarray, z2: np.ndarray) -> tuple:
        """``((l1, u1), (l2, u2))``: :func:`_wilson` of each side at quantile(s) `z` (``z2 = z * z``), the same
        operations in the same order."""
        k, n, spread, defined, at_zero, at_all = (self.k, self.n, self.spread, self.defined, self.at_zero,
                                                  self.at_all)
        extra = np.ndim(z) - len(self.shape)
        if extra > 0:   # levels with leading axes of their own: the sides' axis stays first
            shape = (2,) + (1,) * extra + self.shape
            k, n, spread, defined, at_zero, at_all = (x.reshape(shape) for x in (k, n, spread, defined, at_zero,
                                                                                 at_all))
        with np.errstate(divide="ignore", invalid="ignore"):
            centre = (k + z2 / 2.0) / (n + z2)
            half = z / (n + z2) * np.sqrt(spread + z2 / 4.0)
            low = np.where(defined, np.clip(centre - half, 0.0, 1.0), np.nan)
            high = np.where(defined, np.clip(centre + half, 0.0, 1.0), np.nan)
        low, high = np.where(at_zero, 0.0, low), np.where(at_all, 1.0, high)
        return (low[0], high[0]), (low[1], high[1])


class MoverInterval:
    """The MOVER intervals of many comparisons of two proportions at any levels, the level-free parts computed once.

    :func:`mover_interval` (:meth:`signed`) and :func:`mover_disparity` (calling the object) of the same counts.

    Called with levels of shape (m,) or (p, m) (p levels of each of m comparisons, e.g. every step of a
    p-value's search at once), it gives the numbers :func:`mover_disparity` gives at each: the same
    elementwise operations in the same order.

    Parameters
    ----------
    k1, n1, k2, n2 : array-like of shape (m,)
        Successes and trials of each side (0 <= k <= n); a side with n = 0 gives NaN.
    distance_measure : {'diff', 'ratio'}

    Examples
    --------
    >>> sides = MoverInterval([0], [2], [280], [1000], "diff")
    >>> low, high = sides(np.array([[0.9], [0.95]]))   # two levels of one comparison
    >>> [round(float(x), 3) for x in high[:, 0]]
    [0.304, 0.378]
    """

    __slots__ = ("distance_measure", "sides", "a", "b", "terms", "undefined")

    def __init__(self, k1, n1, k2, n2, distance_measure: str) -> None:
        k1, n1, k2, n2 = (np.asarray(x, dtype=np.float64) for x in (k1, n1, k2, n2))
        self.distance_measure = distance_measure
        self.sides = _WilsonSides(k1, n1, k2, n2)
        with np.errstate(divide="ignore", invalid="ignore"):
            a, b = k1 / n1, k2 / n2
            ab = a * b
            # ratio: ab, (ab)², 2a, 2b; difference: a - b
            self.terms = (ab, ab * ab, 2 * a, 2 * b) if distance_measure == "ratio" else (a - b,)
        self.a, self.b = a, b
        self.undefined = (n1 <= 0) | (n2 <= 0) | np.isnan(n1) | np.isnan(n2)

    def signed(self, level) -> tuple[np.ndarray, np.ndarray]:
        """:func:`mover_interval` at `level` (a float, or an array broadcast with the comparisons)."""
        from scipy.special import ndtri

        level = np.asarray(level, dtype=np.float64)
        z = np.asarray(ndtri(1.0 - (1.0 - level) / 2.0), dtype=np.float64)
        z2 = z * z
        a, b = self.a, self.b
        (l1, u1), (l2, u2) = self.sides.bounds(z, z2)
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.distance_measure == "ratio":
                ab, ab2, a2, b2 = self.terms
                low = (ab - np.sqrt(np.maximum(ab2 - l1 * u2 * (a2 - l1) * (b2 - u2), 0.0))) / (u2 * (b2 - u2))
                high = (ab + np.sqrt(np.maximum(ab2 - u1 * l2 * (a2 - u1) * (b2 - l2), 0.0))) / (l2 * (b2 - l2))
                low = np.where(np.isnan(low) & (a == 0), 0.0, low)     # 0 / 0 at a = 0: the ratio's low end is 0
                high = np.where(np.isnan(high) | (l2 == 0), np.inf, high)
            else:
                d, = self.terms
                low = d - np.sqrt((a - l1) ** 2 + (u2 - b) ** 2)
                high = d + np.sqrt((u1 - a) ** 2 + (b - l2) ** 2)
        return np.where(self.undefined, np.nan, low), np.where(self.undefined, np.nan, high)

    def __call__(self, level) -> tuple[np.ndarray, np.ndarray]:
        """:func:`mover_disparity` at `level`: the signed interval folded at parity."""
        low, high = self.signed(level)
        parity = PARITY_OF[self.distance_measure]
        with np.errstate(divide="ignore", invalid="ignore"):
            inverted = (1.0 / high, 1.0 / low) if self.distance_measure == "ratio" else (-high, -low)
            above, below = low > parity, high < parity
            out_low = np.where(above, low, np.where(below, inverted[0], parity))
            out_high = np.where(above, high, np.where(below, inverted[1], np.fmax(inverted[1], high)))
        nan = np.isnan(low)
        return np.where(nan, np.nan, out_low), np.where(nan, np.nan, out_high)


def mover_disparity(k1, n1, k2, n2, level, distance_measure: str) -> tuple[np.ndarray, np.ndarray]:
    """Interval of the disparity of two proportions a = k1 / n1 and b = k2 / n2 from their Wilson intervals.

    The method of variance estimates recovery (MOVER; Newcombe 1998's hybrid score interval for a
    difference, Donner & Zou 2012's for a ratio) combines each side's Wilson interval [l, u]:

    - difference a - b: [d - sqrt((a - l1)² + (u2 - b)²), d + sqrt((u1 - a)² + (b - l2)²)];
    - ratio a / b: [(ab - sqrt((ab)² - l1 u2 (2a - l1)(2b - u2))) / (u2 (2b - u2)),
      (ab + sqrt((ab)² - u1 l2 (2a - u1)(2b - l2))) / (l2 (2b - l2))].

    Unlike a bootstrap, it never collapses when a side's rows all fall in one cell (0 of 2, say):
    that side's Wilson interval keeps its width. It assumes independent sides (a subgroup and its
    background, or two disjoint subgroups); where the sides share rows (a subgroup against all rows,
    overlapping subgroups) the covariance is positive and the interval is wider than needed.

    Parameters
    ----------
    k1, n1, k2, n2 : array-like of shape (m,)
        Successes and trials of each side (0 <= k <= n); a side with n = 0 gives NaN.
    level : float in (0, 1), or ndarray of shape (m,)
        Confidence level of each comparison.
    distance_measure : {'diff', 'ratio'}

    Returns
    -------
    low, high : ndarray of shape (m,)
        Interval of the disparity |a - b| (in [0, 1]) or max(a, b) / min(a, b) (>= 1, possibly
        inf), the distance of :func:`_compare.distance`: where the signed interval contains parity
        the low end is parity (0 or 1).

    References
    ----------
    Newcombe, R. G. (1998), "Interval estimation for the difference between independent
    proportions: comparison of eleven methods", Statistics in Medicine 17, 873-890 (method 10).
    Donner, A. & Zou, G. Y. (2012), "Closed-form confidence intervals for functions of the normal
    mean and standard deviation", Statistical Methods in Medical Research 21(4), 347-359.

    Examples
    --------
    >>> low, high = mover_disparity([0], [2], [280], [1000], 0.95, "diff")
    >>> round(float(low[0]), 3), round(float(high[0]), 3)
    (0.0, 0.378)
    """
    return MoverInterval(k1, n1, k2, n2, distance_measure)(level)



def mover_interval(k1, n1, k2, n2, level, distance_measure: str) -> tuple[np.ndarray, np.ndarray]:
    """The MOVER interval of a - b (``'diff'``) or a / b (``'ratio'``), signed (see :func:`mover_disparity`).

    Parameters
    ----------
    k1, n1, k2, n2 : array-like of shape (m,)
    level : float in (0, 1), or ndarray of shape (m,)
    distance_measure : {'diff', 'ratio'}

    Returns
    -------
    low, high : ndarray of shape (m,)
        NaN where a side has no trials; a ratio's high end is inf where b's Wilson interval
        reaches 0.
    """
    return MoverInterval(k1, n1, k2, n2, distance_measure).signed(level)


def interval_p_value(interval, parity: float, shape, *, steps: int = 24) -> np.ndarray:
    """The smallest alpha at which `interval` at level 1 - alpha excludes `parity` (the p-value the interval
    inverts), by bisection per comparison; NaN where the interval is undefined.

    The bisection halves [lo, hi] (from [0, 1]) `steps` times at mid = (lo + hi) / 2, keeping the half whose upper
    end excludes parity. Its steps are taken a few at a time: every midpoint the next b steps could visit (the
    2^b - 1 points lo + j (hi - lo) / 2^b, exact dyadic numbers, the very floats the step-by-step search computes)
    is evaluated in one call of `interval`, for every comparison at once, and the b steps then walk those
    evaluations. The result is the step-by-step bisection's, bit for bit, whether or not the interval is
    monotone in its level; b is chosen from the number of comparisons (few comparisons: many steps per call).

    Parameters
    ----------
    interval : callable
        ``interval(levels) -> (low, high)`` of a disparity (parity excluded when ``low > parity``),
        vectorised over an array of levels of shape ``(p,) + shape`` (p levels of each comparison),
        elementwise (e.g. :class:`MoverInterval`).
    parity : float
        0 for a difference, 1 for a ratio.
    shape : tuple
        Shape of the comparisons.
    steps : int
        Bisection steps (24: alpha to within 6e-8).

    Returns
    -------
    ndarray of shape `shape`

    Examples
    --------
    >>> p = interval_p_value(MoverInterval([30], [100], [50], [100], "diff"), 0.0, (1,))
    >>> round(float(p[0]), 4)
    0.0038
    """
    shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(shape)
    m = int(np.prod(shape, dtype=np.int64))
    lo, hi = np.zeros(m), np.ones(m)   # parity is excluded at level 1 - hi, not at level 1 - lo
    probe = np.full((1, m), 1.0 - 1e-12)  # where the interval is undefined
    undefined, done, column = None, 0, np.arange(m)
    bits = _bits_per_call(m, steps)
    while undefined is None or done < steps:
        b = min(bits, steps - done)
        points = 2 ** b
        width = hi - lo
        mids = lo + width * (np.arange(1, points, dtype=np.float64) / points)[:, None]   # exact: the next b steps'
        levels = np.concatenate([probe, 1.0 - mids]) if undefined is None else 1.0 - mids
        low, _ = interval(levels.reshape(levels.shape[:1] + shape))
        low = np.asarray(low).reshape(levels.shape)
        if undefined is None:
            undefined, low = np.isnan(low[0]), low[1:]
        excluded = low > parity
        j_lo, j_hi = np.zeros(m, dtype=np.intp), np.full(m, points, dtype=np.intp)
        for _ in range(b):
            j_mid = (j_lo + j_hi) // 2
            at = excluded[j_mid - 1, column]
            j_hi = np.where(at, j_mid, j_hi)
            j_lo = np.where(at, j_lo, j_mid)
        lo, hi = lo + width * (j_lo / points), lo + width * (j_hi / points)
        done += b
    return np.where(undefined, np.nan, hi).reshape(shape)


def _bits_per_call(m: int, steps: int) -> int:
    """Bisection steps per call of the interval in :func:`interval_p_value`, for m comparisons: the fewest
    element evaluations, counting a call's fixed cost as that of about 700 evaluations (measured on
    :class:`MoverInterval`)."""
    if steps <= 0:
        return 0
    cost = {b: -(-steps // b) * (700 + max(m, 1) * (2 ** b - 1)) for b in range(1, min(steps, 12) + 1)}
    return min(cost, key=cost.get)
